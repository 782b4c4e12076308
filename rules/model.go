package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
)

// What the model-dir rules share: their references, which models they
// judge, and how they walk versions and report what was not read.

const (
	tfServingDocs = "https://www.tensorflow.org/tfx/serving/serving_kubernetes"
	savedModelDoc = "https://www.tensorflow.org/guide/saved_model"
	tritonRepoDoc = "https://github.com/triton-inference-server/server/blob/main/docs/user_guide/model_repository.md"
)

func forEachSavedModel(m *model.Model, fn func(*model.Version, *model.SavedModelDir)) {
	for i := range m.Versions {
		if saved := m.Versions[i].SavedModel; saved != nil {
			fn(&m.Versions[i], saved)
		}
	}
}

// skipUnread marks the pass skipped when content the rule needs is in
// Model.Unread: what it would show is unknown, so the rule cannot pass.
// Findings still fail it. Called last, its reason replaces the rule's own.
func skipUnread(pass *lint.Pass, m *model.Model, unread []string) {
	if len(unread) == 0 {
		return
	}
	names := uniqueStrings(unread)
	for i, rel := range names {
		names[i] = m.Path(rel)
	}
	pass.Skip("not read from the image: " + joinSome(names, maxListedFiles))
}

// maxListedFiles bounds the files a skip reason names.
const maxListedFiles = 5

// tfServingModel returns the model when it is a TF Serving base path, and
// marks the rule skipped otherwise.
func tfServingModel(pass *lint.Pass) *model.Model {
	m := pass.Target.Model
	if m.Layout != model.LayoutTFServing {
		pass.Skip(notLayout(m, "a TF Serving base path"))
		return nil
	}
	return m
}

func notLayout(m *model.Model, want string) string {
	return fmt.Sprintf("not %s (layout: %s)", want, m.Layout)
}

// versionSeverity keeps the rule's severity for versions the policy loads
// and lowers it to a warning for the others: a broken old version fails
// only when someone changes the version policy.
func versionSeverity(pass *lint.Pass, version model.Version) lint.Severity {
	if version.Resident || pass.Rule.Severity < lint.Warning {
		return pass.Rule.Severity
	}
	return lint.Warning
}

func looseFile(saved *model.SavedModelDir) string {
	if saved.File != "" {
		return saved.File
	}
	return saved.Chunked
}

func childDirs(m *model.Model, dir string) ([]string, bool) {
	set := map[string]bool{}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	for _, file := range m.Files {
		rest, ok := strings.CutPrefix(file.Path, prefix)
		if !ok {
			continue
		}
		if i := strings.Index(rest, "/"); i > 0 {
			set[rest[:i]] = true
		}
	}
	dirs := make([]string, 0, len(set))
	for name := range set {
		dirs = append(dirs, name)
	}
	sort.Strings(dirs)
	return dirs, len(dirs) > 0
}
