package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
)

// Model files (MDL107, MDL108): their size and whether they hold weights at all.

var modelTooLarge = &lint.Rule{
	ID: "MDL107", Name: "model-too-large", Severity: lint.Warning,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "The model directory is larger than the configured model.maxSize.",
		Why: "A model that grew past what the deployment was sized for (a fatter export, an extra version left in the base " +
			"path, weights duplicated in .bin and .safetensors) fails late: the storage initializer fills the emptyDir and the " +
			"pod is evicted, the image no longer fits the node's disk, or the server is OOMKilled (exit 137) while loading. " +
			"The size counted is every file under the directory, as du -sb reports it (.git excluded). Skipped when model.maxSize is not set.",
		Bad: "# .modellint.yaml\nmodel:\n  maxSize: 2Gi\n---\nmodels/resnet/\n" +
			"  1/\n    saved_model.pb\n    variables/\n      variables.data-00000-of-00001 (1.4 GiB)\n      variables.index\n" +
			"  2/\n    saved_model.pb\n    variables/\n      variables.data-00000-of-00001 (1.4 GiB)\n      variables.index",
		Good: "# .modellint.yaml\nmodel:\n  maxSize: 2Gi\n---\nmodels/resnet/\n" +
			"  2/\n    saved_model.pb\n    variables/\n      variables.data-00000-of-00001 (1.4 GiB)\n      variables.index",
		Fix: "Remove versions and files the server does not load, or raise model.maxSize together with the memory, disk and startup budgets that depend on it.",
		References: []string{
			"https://www.tensorflow.org/tfx/serving/serving_config#serving_a_specific_version_of_a_model",
			"https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/",
		},
	},
	Check: checkModelTooLarge,
}

func checkModelTooLarge(pass *lint.Pass) {
	m := pass.Target.Model
	limit, ok := pass.Config.ModelMaxSize()
	if !ok {
		pass.Skip("model.maxSize is not set in the config")
		return
	}
	if m.Bytes <= limit {
		return
	}
	largest := m.Files[0]
	for _, file := range m.Files {
		if file.Size > largest.Size {
			largest = file
		}
	}
	pass.ReportFilef(m.Dir,
		"%s holds %s in %d files, more than model.maxSize %s (%s); the largest file is %s (%s); remove versions or files the server "+
			"does not load, or raise the limit together with the memory and disk it stands for",
		m.Dir, humanBytes(m.Bytes), len(m.Files), pass.Config.Model.MaxSize, humanBytes(limit), m.Path(largest.Path), humanBytes(largest.Size))
}

var lfsPointer = &lint.Rule{
	ID: "MDL108", Name: "lfs-pointer", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A model file is a Git LFS pointer, a weight file is empty, a file is a symlink that leaves the model directory, or an entry is a FIFO or a device.",
		Why: "A repository cloned without git lfs holds ~130-byte text files (\"version https://git-lfs.github.com/spec/v1 ...\") " +
			"in place of weights; the server then fails deep inside its loader: safetensors reports \"Error while deserializing " +
			"header: HeaderTooLarge\", TensorFlow \"Can't parse ... as binary proto\" or a failed restore, PyTorch \"invalid load key, 'v'\". " +
			"An empty weight file is an interrupted copy. A symlink that points outside the model directory (a Hugging Face cache " +
			"snapshot links into ../../blobs) dangles in a container that mounts or copies only the directory; it is an error for " +
			"a weight file and a warning for other files. A FIFO or a device where a file belongs (a named pipe config.pbtxt) blocks or " +
			"fails the server's open.",
		Bad: "models/llm/\n  model.safetensors <<EOF\n    version https://git-lfs.github.com/spec/v1\n" +
			"    oid sha256:4c2b8a2d5b6e6a0f0d8f3b1c9a7e5d3f1b9c7a5e3d1f9b7c5a3e1d9f7b5c3a1e\n    size 4965799096\n  EOF",
		Good: "models/llm/\n  model.safetensors (4.6 GiB)",
		Fix:  "Run git lfs pull (or enable LFS in the CI checkout), copy symlinked files with cp -L, and re-copy empty files from the source.",
		References: []string{
			"https://git-lfs.com/",
			"https://github.com/huggingface/transformers/issues/27923",
			"https://huggingface.co/docs/huggingface_hub/guides/manage-cache",
		},
	},
	Check: checkLFSPointer,
}

func checkLFSPointer(pass *lint.Pass) {
	m := pass.Target.Model
	ownRule := map[string]bool{} // files other rules report
	forEachSavedModel(m, func(_ *model.Version, saved *model.SavedModelDir) {
		ownRule[saved.File] = true
	})
	if m.Loose != nil {
		ownRule[m.Loose.File] = true
	}
	if m.Triton != nil {
		ownRule[m.Triton.ConfigFile] = true
	}
	var unread []string
	for _, file := range m.Files {
		switch {
		case file.LFSPointer && !ownRule[file.Path]:
			pass.ReportFilef(m.Path(file.Path),
				"%s is a Git LFS pointer (%d bytes of text), not the file it stands for: the server fails to load it; run git lfs pull "+
					"(or fetch LFS objects in the CI checkout) before the model is packaged", m.Path(file.Path), file.Size)
		case file.Size == 0 && file.Weight:
			switch allowed, index := emptyShard(m, file.Path); {
			case index != "":
				unread = append(unread, index) // it says whether the shard holds anything
			case !allowed:
				pass.ReportFilef(m.Path(file.Path),
					"%s is an empty weight file (an interrupted copy?): the server fails to load it; copy it again from the source", m.Path(file.Path))
			}
		case file.MayBeLFSPointer() && m.IsUnread(file.Path) && !ownRule[file.Path]:
			unread = append(unread, file.Path)
		}
	}
	for _, special := range m.Special {
		pass.ReportFilef(m.Path(special.Path),
			"%s is %s, not a file: the server's open of it blocks or fails (and so does a copy into the image); "+
				"put the real file there", m.Path(special.Path), special.Kind)
	}
	for _, link := range m.Links {
		// A weight file behind a broken link fails the load; another file
		// (a README, a tokenizer the server may not need) might not.
		severity := pass.Rule.Severity
		if !link.Weight {
			severity = min(severity, lint.Warning)
		}
		if link.Dangling {
			pass.Report(lint.Diagnostic{Severity: severity, File: m.Path(link.Path), Message: fmt.Sprintf("%s is a symlink to %s, which does not exist; copy the real file into the model directory", m.Path(link.Path), link.Target)})
			continue
		}
		pass.Report(lint.Diagnostic{Severity: severity, File: m.Path(link.Path), Message: fmt.Sprintf("%s is a symlink to %s, outside the model directory: a container that mounts or copies only %s gets a dangling link; "+
			"copy the target into the directory (cp -L, rsync --copy-links)", m.Path(link.Path), link.Target, m.Dir)})
	}
	skipUnread(pass, m, unread)
}

// emptyShard says an empty file is a variables shard that holds nothing
// the index stores (TensorFlow writes one per shard even when it is
// unused), or names the index that would say, when it was not read.
func emptyShard(m *model.Model, rel string) (allowed bool, unreadIndex string) {
	forEachSavedModel(m, func(_ *model.Version, saved *model.SavedModelDir) {
		v := saved.Variables
		if v.Unread && path.Dir(rel) == path.Join(saved.Dir, "variables") && strings.HasPrefix(path.Base(rel), "variables.data-") {
			unreadIndex = v.Index
		}
		for _, shard := range v.Shards {
			if shard.File == rel && shard.Need == 0 {
				allowed = true
			}
		}
	})
	return allowed, unreadIndex
}
