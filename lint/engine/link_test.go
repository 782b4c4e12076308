package engine

import (
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
)

func TestUnder(t *testing.T) {
	cases := []struct {
		p, dir, rel string
		ok          bool
	}{
		{"/models/resnet", "/models/resnet", "", true},
		{"/models/resnet/1", "/models", "resnet/1", true},
		{"/models-old/resnet", "/models", "", false},
		{"/models/resnet", "/", "models/resnet", true},
		{"/models/resnet/", "/models/resnet", "", true},
	}
	for _, c := range cases {
		rel, ok := lint.PathUnder(c.p, c.dir)
		if rel != c.rel || ok != c.ok {
			t.Errorf("lint.PathUnder(%q, %q) = %q, %v; want %q, %v", c.p, c.dir, rel, ok, c.rel, c.ok)
		}
	}
}

func TestLinkOrder(t *testing.T) {
	source := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: tfs
  annotations: {modellint.dev/model-path: models/annotated}
spec:
  template:
    spec:
      containers:
        - name: serving
          image: tensorflow/serving:2.19.0
          args: [--model_name=resnet, --model_base_path=/models/resnet]
          volumeMounts: [{name: m, mountPath: /models}]
`
	file, err := manifest.Load("deploy.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifest.NewSet([]*manifest.File{file})
	if err != nil {
		t.Fatal(err)
	}
	models := []*lint.Target{
		{Model: &model.Model{Dir: "models/resnet"}},
		{Model: &model.Model{Dir: "models/annotated"}},
		{Model: &model.Model{Dir: "store/resnet"}},
	}
	cases := []struct {
		name    string
		config  *lint.Config
		flagged []lint.ModelMapping
		want    string
		how     string
	}{
		{"annotation wins over name", &lint.Config{}, nil, "models/annotated", "annotation modellint.dev/model-path"},
		{"mapping wins over annotation", &lint.Config{Models: []lint.ModelMapping{{Path: "store", MountPath: "/models"}}}, nil,
			"store/resnet", "config models[0]"},
		{"flag", &lint.Config{}, []lint.ModelMapping{{Path: "store/resnet", MountPath: "/models/resnet"}}, "store/resnet", "--model store/resnet"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := &lint.Target{Workload: set.Workloads[0]}
			linker := newLinker(c.config, c.flagged)
			linker.addModels(models)
			linker.link(target)
			if len(target.Links) != 1 {
				t.Fatalf("links %+v", target.Links)
			}
			link := target.Links[0]
			if link.Model == nil || link.Model.Dir != c.want || link.How != c.how {
				t.Errorf("linked %+v by %q, want %s by %q", link.Model, link.How, c.want, c.how)
			}
			if link.Mount == nil || link.Mount.Mount != "/models" || link.Mount.Rel != "resnet" {
				t.Errorf("mount %+v", link.Mount)
			}
			if link.ServerPath.Field != "args[1]" || target.Model != link.Model {
				t.Errorf("server path %+v", link.ServerPath)
			}
		})
	}
}

// TestTransformerReadsNoModel: a transformer's or an explainer's container
// runs KServe's ModelServer, whose default model dir is /mnt/models, but
// KServe copies the storageUri only into the predictor's: they link none.
func TestTransformerReadsNoModel(t *testing.T) {
	source := `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: cifar10, namespace: vision}
spec:
  predictor:
    containers:
      - name: kserve-container
        image: kserve/sklearnserver:v0.14.0
        args: [--model_name=cifar10]
  transformer:
    containers:
      - name: kserve-container
        image: kserve/sklearnserver:v0.14.0
  explainer:
    containers:
      - name: kserve-container
        image: kserve/sklearnserver:v0.14.0
`
	file, err := manifest.Load("isvc.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifest.NewSet([]*manifest.File{file})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range set.Workloads {
		target := &lint.Target{Workload: w}
		newLinker(&lint.Config{}, nil).link(target)
		var paths []string
		for _, link := range target.Links {
			paths = append(paths, link.ServerPath.Value)
		}
		want := map[string]int{"predictor": 1, "transformer": 0, "explainer": 0}[w.Component]
		if len(paths) != want {
			t.Errorf("%s: model paths %q, want %d", w.Component, paths, want)
		}
	}
}

// TestTransformerStorageURI: a transformer whose STORAGE_URI names a model
// reads it at /mnt/models, where KServe's storage initializer puts it, and
// the model dir is found by the URI's last element, as for a storageUri.
func TestTransformerStorageURI(t *testing.T) {
	source := `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: cifar10, namespace: vision}
spec:
  predictor:
    model:
      modelFormat: {name: sklearn}
      storageUri: gs://models/cifar10
  transformer:
    containers:
      - name: kserve-container
        image: kserve/sklearnserver:v0.14.0
        env:
          - {name: STORAGE_URI, value: gs://models/encoders}
`
	file, err := manifest.Load("isvc.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	set, err := manifest.NewSet([]*manifest.File{file})
	if err != nil {
		t.Fatal(err)
	}
	linker := newLinker(&lint.Config{}, nil)
	linker.addModels([]*lint.Target{{Model: &model.Model{Dir: "models/encoders"}}, {Model: &model.Model{Dir: "models/cifar10"}}})
	for _, w := range set.Workloads {
		if w.Component != "transformer" {
			continue
		}
		target := &lint.Target{Workload: w}
		linker.link(target)
		if len(target.Links) != 1 {
			t.Fatalf("links %+v", target.Links)
		}
		link := target.Links[0]
		if link.ServerPath.Value != "/mnt/models" || link.ServerPath.Field != "env[0].value" ||
			link.ServerPath.From != "STORAGE_URI gs://models/encoders" || link.Model == nil || link.Model.Dir != "models/encoders" {
			t.Errorf("linked %+v to %+v", link.ServerPath, link.Model)
		}
	}
}

// TestLinkNoteLines: each way a container finds (or does not find) its
// model reads as Result.Links has it.
func TestLinkNoteLines(t *testing.T) {
	own := &heldOwn{run: &texts{}}
	values := "/models/a/models/m"
	base := linkNote{container: own.keep("container server"), from: own.keep("--model"), value: span{9, 18}}
	for _, tc := range []struct {
		found       linkFound
		detail, how string
		want        string
	}{
		{linkedModel, "models/m", "--model flag", "Deployment/d container server: --model /models/m → model models/m (--model flag)"},
		{notInImage, "vllm:1", "", "Deployment/d container server: --model /models/m → no volumeMount covers it and image vllm:1 holds no model dir there"},
		{onVolume, "/models", "", "Deployment/d container server: --model /models/m → on the volume mounted at /models; no model dir given for it " +
			"(map one with --model DIR:/models, the modellint.dev/model-path annotation, or models: in .modellint.yaml)"},
		{imageNotRead, "", "", "Deployment/d container server: --model /models/m → no volumeMount covers it and the image was not read, so no model is linked"},
	} {
		note := base
		note.found, note.detail, note.how = tc.found, own.keep(tc.detail), own.keep(tc.how)
		if got := note.line("Deployment/d", values, own); got != tc.want {
			t.Errorf("found %d:\n got %s\nwant %s", tc.found, got, tc.want)
		}
	}
}
