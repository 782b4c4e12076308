package pysource

import "strings"

// Import is one module an import statement asks for.
type Import struct {
	// Module is the dotted module name without leading dots; Level is the
	// number of leading dots of a relative import (0: absolute).
	Module string
	Level  int
	// From says the statement is `from MODULE import …`, whose names may
	// be attributes rather than modules and are not listed.
	From bool
	// Names are the names a from-import binds (not "*"), which may be
	// submodules of a package.
	Names []string
	Line  int
}

// Imports is what a module imports unconditionally.
type Imports struct {
	// Unconditional are the imports of top-level statements: not inside a
	// function, class, try, if (TYPE_CHECKING included), with or loop
	// body, so they run whenever the module is imported.
	Unconditional []Import
	// PathChangedAt is the line of the first top-level statement that
	// touches sys.path or site (sys.path.insert, site.addsitedir), 0 when
	// none does: the imports after it may come from anywhere.
	PathChangedAt int
}

// compoundKeywords start a statement whose body runs only sometimes or
// later, so a one-line body (`try: import x`) is conditional too.
var compoundKeywords = map[string]bool{
	"if": true, "elif": true, "else": true, "try": true, "except": true, "finally": true, "while": true, "for": true,
	"with": true, "def": true, "class": true, "async": true, "match": true, "case": true,
}

// ParseImports tokenizes source and lists its unconditional imports.
func ParseImports(src []byte) (*Imports, error) {
	lines, err := Tokenize(src)
	if err != nil {
		return nil, err
	}
	result := &Imports{}
	for _, line := range lines {
		if line.Indent != 0 || len(line.Tokens) == 0 {
			continue
		}
		first := line.Tokens[0]
		if first.Kind == Op && first.Text == "@" {
			continue // a decorator: the def or class follows
		}
		if first.Kind == Name && compoundKeywords[first.Text] && isCompoundHeader(line.Tokens) {
			continue
		}
		for _, statement := range splitStatements(line.Tokens) {
			if result.PathChangedAt == 0 && touchesImportPath(statement) {
				result.PathChangedAt = statement[0].Line
			}
			result.Unconditional = append(result.Unconditional, parseImport(statement)...)
		}
	}
	return result, nil
}

// isCompoundHeader tells `match x:` (a statement) from `match = 1` (a
// name): soft keywords start a statement only when a colon at bracket
// depth 0 ends the header.
func isCompoundHeader(tokens []Token) bool {
	if tokens[0].Text != "match" && tokens[0].Text != "case" {
		return true
	}
	if len(tokens) < 3 || tokens[1].Kind == Op && (tokens[1].Text == ":" || tokens[1].Text == "=" || tokens[1].Text == ".") {
		return false
	}
	depth := 0
	for _, token := range tokens[1:] {
		if token.Kind != Op {
			continue
		}
		switch token.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ":":
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// splitStatements splits a logical line at its top-level semicolons.
func splitStatements(tokens []Token) [][]Token {
	var statements [][]Token
	depth, start := 0, 0
	for i, token := range tokens {
		if token.Kind != Op {
			continue
		}
		switch token.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ";":
			if depth == 0 {
				if i > start {
					statements = append(statements, tokens[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(tokens) {
		statements = append(statements, tokens[start:])
	}
	return statements
}

// touchesImportPath says a statement names sys.path, or calls site's
// addsitedir, which change where later imports are found.
func touchesImportPath(tokens []Token) bool {
	for i := 0; i+2 < len(tokens); i++ {
		if tokens[i].Kind == Name && tokens[i+1].Text == "." && tokens[i+2].Kind == Name {
			switch tokens[i].Text + "." + tokens[i+2].Text {
			case "sys.path", "sys.meta_path", "sys.path_hooks", "site.addsitedir":
				return true
			}
		}
	}
	for _, token := range tokens {
		if token.Kind == Name && (token.Text == "addsitedir" || token.Text == "path_hooks" || token.Text == "meta_path") {
			return true
		}
	}
	return false
}

// parseImport reads `import a.b [as c], d` and `from .a import (b, c)`.
func parseImport(tokens []Token) []Import {
	if len(tokens) < 2 || tokens[0].Kind != Name {
		return nil
	}
	switch tokens[0].Text {
	case "import":
		var imports []Import
		for _, part := range splitCommas(tokens[1:]) {
			if module, rest := dottedName(part); module != "" && (len(rest) == 0 || rest[0].Text == "as") {
				imports = append(imports, Import{Module: module, Line: part[0].Line})
			}
		}
		return imports
	case "from":
		level := 0
		rest := tokens[1:]
		for len(rest) > 0 && rest[0].Kind == Op && (rest[0].Text == "." || rest[0].Text == "...") {
			level += len(rest[0].Text)
			rest = rest[1:]
		}
		module, rest := dottedName(rest)
		if len(rest) == 0 || rest[0].Kind != Name || rest[0].Text != "import" || module == "" && level == 0 {
			return nil
		}
		if level == 0 && module == "__future__" {
			return nil
		}
		var names []string
		for _, part := range splitCommas(rest[1:]) {
			for len(part) > 0 && part[0].Kind == Op && part[0].Text == "(" {
				part = part[1:]
			}
			if len(part) > 0 && part[0].Kind == Name {
				names = append(names, part[0].Text)
			}
		}
		return []Import{{Module: module, Level: level, From: true, Names: names, Line: tokens[0].Line}}
	}
	return nil
}

func splitCommas(tokens []Token) [][]Token {
	var parts [][]Token
	start := 0
	for i, token := range tokens {
		if token.Kind == Op && token.Text == "," {
			if i > start {
				parts = append(parts, tokens[start:i])
			}
			start = i + 1
		}
	}
	if start < len(tokens) {
		parts = append(parts, tokens[start:])
	}
	return parts
}

// dottedName reads NAME(.NAME)* and returns the rest.
func dottedName(tokens []Token) (string, []Token) {
	var parts []string
	for len(tokens) > 0 && tokens[0].Kind == Name && tokens[0].Text != "import" {
		parts = append(parts, tokens[0].Text)
		tokens = tokens[1:]
		if len(tokens) == 0 || tokens[0].Kind != Op || tokens[0].Text != "." {
			break
		}
		tokens = tokens[1:]
	}
	return strings.Join(parts, "."), tokens
}

// Names lists every name a module's source mentions, and whether it
// star-imports another module (which can bind any name): a name it never
// mentions is one it cannot define.
func Names(src []byte) (names map[string]bool, starImport bool, err error) {
	lines, err := Tokenize(src)
	if err != nil {
		return nil, false, err
	}
	names = map[string]bool{}
	for _, line := range lines {
		for i, token := range line.Tokens {
			if token.Kind == Name {
				names[token.Text] = true
			}
			if token.Kind == Op && token.Text == "*" && i > 0 && line.Tokens[i-1].Kind == Name && line.Tokens[i-1].Text == "import" {
				starImport = true
			}
		}
	}
	return names, starImport, nil
}
