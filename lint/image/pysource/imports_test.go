package pysource

import (
	"fmt"
	"strings"
	"testing"
)

func render(imports *Imports) string {
	var out []string
	for _, i := range imports.Unconditional {
		from := ""
		if i.From {
			from = "from "
		}
		out = append(out, fmt.Sprintf("%d:%s%s%s", i.Line, from, strings.Repeat(".", i.Level), i.Module))
	}
	if imports.PathChangedAt > 0 {
		out = append(out, fmt.Sprintf("path@%d", imports.PathChangedAt))
	}
	return strings.Join(out, " ")
}

func TestParseImports(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"plain", "import os\nimport torch, numpy as np\nimport a.b.c as d\n", "1:os 2:torch 2:numpy 3:a.b.c"},
		{"from", "from fastapi import FastAPI\nfrom . import routes\nfrom ..x.y import (\n  a,\n  b,\n)\nfrom __future__ import annotations\n",
			"1:from fastapi 2:from . 3:from ..x.y"},
		{"try except ImportError", "try:\n    import torch\nexcept ImportError:\n    torch = None\nimport yaml\n", "5:yaml"},
		{"one-line try", "try: import ujson as json\nexcept ImportError: import json\n", ""},
		{"type checking", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\n", "1:from typing"},
		{"function", "def load():\n    import torch\n    return torch\n\nclass A:\n    import x\n", ""},
		{"decorated", "@app.get('/')\ndef root(): import x\n", ""},
		{"strings hide imports", "s = '''\nimport torch\n'''\nt = \"import x\" # import y\nimport z\n", "5:z"},
		{"continuation", "import os, \\\n    sys\n", "1:os 2:sys"},
		{"semicolons", "import a; import b\nx = 1; from c import d\n", "1:a 1:b 2:from c"},
		{"fstring nested quotes", "x = f\"{d[\"k\"]} {y:>{w}} {{literal}}\"\nimport after\n", "2:after"},
		{"fstring triple", "x = f'''\n{a!r:10}\n'''\nimport after\n", "4:after"},
		{"prefixes", "a = rb'\\'import x'\nb = Rf\"{1}\"\nc = br'''x'''\nimport ok\n", "4:ok"},
		{"walrus and match", "if (n := 10) > 5: pass\nmatch command:\n    case 'go':\n        import x\nmatch = 3\nimport y\n", "6:y"},
		{"sys path", "import sys\nsys.path.insert(0, '/opt/lib')\nimport mylib\n", "1:sys 3:mylib path@2"},
		{"indented continuation in brackets", "from a import (b,\nc)\n  \nimport d\n", "1:from a 4:d"},
		{"crlf", "import a\r\nimport b\r\n", "1:a 2:b"},
		{"byte order mark", "\xef\xbb\xbfimport a\n", "1:a"},
		{"numbers", "x = 0x1e+1\ny = 1e-5\nimport z\n", "3:z"},
		{"type hints", "def f(x: int) -> list[str]: ...\nv: dict[str, int] = {}\nimport q\n", "3:q"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			imports, err := ParseImports([]byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := render(imports); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestParseImportsErrors(t *testing.T) {
	for _, src := range []string{"x = 'unterminated\n", "x = (\n", "x = )\n", "s = '''never", "f'{x'", "x = " + strings.Repeat("(", 300) + strings.Repeat(")", 300)} {
		if _, err := ParseImports([]byte(src)); err == nil {
			t.Errorf("%q: want an error", src)
		}
	}
	if _, err := ParseImports(make([]byte, MaxSource+1)); err != ErrTooLarge {
		t.Errorf("oversized source: got %v", err)
	}
}

func FuzzParseImports(f *testing.F) {
	for _, seed := range []string{"import os\n", "from . import x\n", "x = f\"{a[\"b\"]:{c}}\"\n", "try:\n import a\nexcept: pass\n", "s='''\\\n'''\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		imports, err := ParseImports(src)
		if err != nil {
			return
		}
		for _, i := range imports.Unconditional {
			if i.Line < 1 || i.Module == "" && i.Level == 0 {
				t.Fatalf("bad import %+v", i)
			}
		}
	})
}
