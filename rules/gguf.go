package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
)

var ggufUnloadable = &lint.Rule{
	ID: "MDL409", Name: "gguf-unloadable", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactModel},
	Doc: lint.Doc{
		Summary: "The GGUF file the server is given is not in the linked model dir, or its header cannot be read, or the server is given the model dir instead of its GGUF file.",
		Why: "llama.cpp (and vLLM serving a .gguf) opens the file -m or --model names and reads its header before " +
			"anything else: a file that is not there, a truncated download, a Git LFS pointer or a GGUFv1 file makes it " +
			"exit at once (\"gguf_init_from_file: failed to open GGUF file\", \"failed to read magic\", \"tensor data is " +
			"not within the file bounds\", \"llama_model_load: error loading model\"), and the container restarts " +
			"forever. The header is read the way ggml does: the magic and version, every metadata value, and each " +
			"tensor's dimensions, ggml type and offset, whose data must lie within the file. Neither server looks for a GGUF file " +
			"in a directory it is given: llama.cpp opens the directory as the file (\"llama_model_loader: failed to load model " +
			"from /models/llama\"), and vLLM reads it as a Hugging Face model dir, which without config.json makes it exit " +
			"(\"Invalid repository ID or local directory specified\").",
		Bad:  docLlamaServer("Meta-Llama-3.1-8B-Instruct-Q5_K_M.gguf") + "\n---\n" + docLlama31Q4,
		Good: docLlamaServer("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf") + "\n---\n" + docLlama31Q4,
		Fix:  "Point -m (or vLLM's --model) at a .gguf file the dir holds, or download the file again (and check its sha256 against the hub's).",
		References: []string{
			"https://github.com/ggml-org/ggml/blob/master/docs/gguf.md",
			"https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md",
			"https://github.com/vllm-project/vllm/blob/main/vllm/transformers_utils/gguf_utils.py",
		},
	},
	Check: checkGGUFUnloadable,
}

// docLlamaServer is the pod of MDL409's examples: llama.cpp's server
// given the file of models/llama that -m names.
func docLlamaServer(file string) string {
	return "containers:\n  - name: llama-server\n    image: ghcr.io/ggml-org/llama.cpp:server-b6700\n" +
		"    args: [-m, /models/llama/" + file + "]\n" +
		"    volumeMounts: [{name: models, mountPath: /models/llama}]"
}

// docLlama31Q4 is the model dir of MDL409's examples: Llama 3.1 8B
// Instruct in Q4_K_M, its 8.03B parameters in one Q4_K tensor for short.
const docLlama31Q4 = "# model dir\nmodels/llama/\n  Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf <<gguf\n" +
	"    general.architecture = \"llama\"\n    general.name = \"Meta Llama 3.1 8B Instruct\"\n" +
	"    tensor weights Q4_K [8030261248]\n  gguf"

func checkGGUFUnloadable(pass *lint.Pass) {
	var coverage lint.Coverage
	for _, link := range linkedModels(pass) {
		m := link.Model
		name := path.Base(link.ServerPath.Value)
		namesFile := strings.EqualFold(path.Ext(name), ".gguf")
		if len(m.GGUF) == 0 && !namesFile {
			continue
		}
		field := linkField(link)
		if !namesFile && !namesHubRepo(link) {
			if reportGGUFDir(pass, link) {
				coverage.Checked()
			}
			continue
		}
		coverage.Checked()
		if file := fileNamed(m, name); namesFile && file != nil && (file.LFSPointer || file.Size == 0) {
			if file.Size == 0 {
				pass.Reportf(field, "%s: %s names %s, which is empty in model dir %s (%s): the server exits at start "+
					"(\"failed to read magic\"); download the file again", describe(link.Container), link.ServerPath.From,
					name, m.Dir, link.How)
			}
			continue // a Git LFS pointer is MDL108's
		}
		files, problem := ggufFor(link)
		switch {
		case problem.kind == ggufFine && len(files) == 0 && namesFile:
			pass.Reportf(field, "%s: %s names %s, but model dir %s (%s) holds no GGUF file: the server exits at start "+
				"(\"failed to open GGUF file\"); point it at the model's .gguf file", describe(link.Container),
				link.ServerPath.From, name, m.Dir, link.How)
		case problem.kind == ggufNotHeld:
			pass.Reportf(field, "%s: %s (%s; it has %s): the server exits at start (\"failed to open GGUF file\"); "+
				"point it at one of those", describe(link.Container), problem.text, link.How, joinAnd(ggufNames(m.GGUF)))
		case problem.kind == ggufAmbiguous:
			// Not a failure: llama.cpp's -hf without a :QUANT tag takes the
			// repo's Q4_K_M file, else its first (common/arg.cpp).
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf(
				"%s: %s (%s: %s), so which one it loads is not known here; name the file to serve (-hf REPO:QUANT)",
				describe(link.Container), problem.text, link.ServerPath.Value, joinAnd(ggufNames(m.GGUF)))})
		case problem.kind == ggufUnreadable:
			pass.Reportf(field, "%s: %s: the server fails to load it (llama.cpp: \"llama_model_load: error loading model\") and the "+
				"container restarts forever; download the file again", describe(link.Container), problem.text)
		}
	}
	coverage.SkipIfNone(pass, "no linked model is a GGUF file")
}

// reportGGUFDir reports a server given the model dir that holds GGUF
// files rather than a file of it, when the server is known to fail on
// that; false when it is not known what the server makes of the dir.
//
// Neither server picks a dir's only GGUF file. llama.cpp's -m sets the
// path it loads (common/arg.cpp), and llama_model_loader opens it with
// gguf_init_from_file (src/llama-model-loader.cpp), which reads the GGUF
// magic from the path itself (ggml/src/gguf.cpp): a directory fails with
// "failed to load model from <path>". vLLM takes a local path as a GGUF
// model only when it is a file (check_gguf_file, is_gguf in
// vllm/transformers_utils/gguf_utils.py; the GGUF loader's
// _prepare_weights takes a file, DIR:QUANT, or a hub reference) and reads
// any other dir as a Hugging Face model: get_config
// (vllm/transformers_utils/config.py) refuses one without config.json or
// params.json ("Invalid repository ID or local directory specified"), and
// with one it loads the dir's other weights, not its GGUF files.
func reportGGUFDir(pass *lint.Pass, link *lint.Link) bool {
	m := link.Model
	dir := link.ServerPath.Value
	example := path.Join(dir, m.GGUF[0].Path)
	switch link.Container.Runtime.Name {
	case "llama.cpp":
		pass.Reportf(linkField(link), "%s: %s names %s, the model dir %s (%s) that holds %s, not a file: llama.cpp opens the path it is "+
			"given as the GGUF file and exits at start (\"llama_model_loader: failed to load model from %s\"); point it at the "+
			".gguf file, e.g. %s", describe(link.Container), link.ServerPath.From, dir, m.Dir, link.How, joinAnd(ggufNames(m.GGUF)),
			dir, example)
		return true
	case "vllm":
		if m.File("config.json") != nil || m.File("params.json") != nil {
			return false // a Hugging Face model dir, whose other files vLLM loads
		}
		pass.Reportf(linkField(link), "%s: %s names %s, the model dir %s (%s) that holds %s and no config.json: vLLM reads a "+
			"directory as a Hugging Face model and exits at start (\"Invalid repository ID or local directory specified: '%s'\"); "+
			"it loads a GGUF model only from the file, so point it at %s", describe(link.Container), link.ServerPath.From, dir,
			m.Dir, link.How, joinAnd(ggufNames(m.GGUF)), dir, example)
		return true
	}
	return false
}

// namesHubRepo says a link's path is a hub repository the server
// downloads from, not a path it opens: llama.cpp's -hf (its -m is always
// a path), a repo id (org/name) for the others, as hubDownloadOf reads it.
func namesHubRepo(link *lint.Link) bool {
	value := link.ServerPath
	if link.Container.Runtime.Name == "llama.cpp" {
		return value.From == "-hf" || value.From == "--hf-repo" || value.From == "env LLAMA_ARG_HF_REPO"
	}
	return hubID.MatchString(value.Value) && !strings.HasPrefix(value.Value, ".")
}

// fileNamed is the model dir's file of a base name, nil when none.
func fileNamed(m *model.Model, name string) *model.File {
	for i := range m.Files {
		if path.Base(m.Files[i].Path) == name {
			return &m.Files[i]
		}
	}
	return nil
}

func ggufNames(files []model.GGUFFile) []string {
	names := make([]string, len(files))
	for i, file := range files {
		names[i] = file.Path
	}
	return names
}

// splitName matches llama.cpp's split files, model-00001-of-00003.gguf.
var splitName = lazyregexp.New(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// ggufProblemKind says why the GGUF files a server loads are not known.
type ggufProblemKind int

const (
	ggufFine       ggufProblemKind = iota
	ggufNotHeld                    // the path names a file the dir does not hold
	ggufAmbiguous                  // the path names the dir, which holds several models
	ggufUnreadable                 // a header cannot be read
)

// ggufProblem is a problem with its words for messages.
type ggufProblem struct {
	kind ggufProblemKind
	text string
}

// ggufFor picks the GGUF files a link's server loads: the file its path
// names with the other splits of it, or for a hub repository (llama.cpp's
// -hf) the dir's only GGUF model. No files and no problem when the model
// holds no GGUF file, or when the path names the dir itself: no server
// loads a GGUF file it is not pointed at (see reportGGUFDir).
func ggufFor(link *lint.Link) ([]model.GGUFFile, ggufProblem) {
	m := link.Model
	if len(m.GGUF) == 0 {
		return nil, ggufProblem{}
	}
	sets := map[string][]model.GGUFFile{} // by the first split's name
	for _, file := range m.GGUF {
		key := file.Path
		if match := splitName.FindStringSubmatch(file.Path); match != nil {
			key = match[1] + "-00001-of-" + match[3] + ".gguf"
		}
		sets[key] = append(sets[key], file)
	}
	var chosen []model.GGUFFile
	if name := path.Base(link.ServerPath.Value); strings.EqualFold(path.Ext(name), ".gguf") {
		for key, files := range sets {
			for _, file := range files {
				if path.Base(file.Path) == name {
					chosen = sets[key]
				}
			}
		}
		if chosen == nil {
			return nil, ggufProblem{ggufNotHeld, fmt.Sprintf("%s names %s, which model dir %s does not hold",
				link.ServerPath.From, name, m.Dir)}
		}
	} else if !namesHubRepo(link) {
		return nil, ggufProblem{}
	} else if len(sets) == 1 {
		for _, files := range sets {
			chosen = files
		}
	} else {
		return nil, ggufProblem{ggufAmbiguous, fmt.Sprintf("model dir %s holds %d GGUF models and %s does not name one",
			m.Dir, len(sets), link.ServerPath.From)}
	}
	for _, file := range chosen {
		if file.Header == nil {
			return nil, ggufProblem{ggufUnreadable, fmt.Sprintf("the GGUF header of %s/%s cannot be read: %s",
				m.Dir, file.Path, file.Error)}
		}
	}
	return chosen, ggufProblem{}
}
