package python

import (
	"fmt"
	"slices"
	"testing"

	"github.com/modellint/modellint/lint/image/launch"
)

func TestFrameworks(t *testing.T) {
	const site = "/usr/local/lib/python3.11/site-packages"
	tfBuild := func(info string) string {
		return fmt.Sprintf(`{path: %s/tensorflow/python/platform/build_info.py, content: "\"\"\"Auto-generated module providing information about the build.\"\"\"\nimport collections\n\nbuild_info = %s\n"}`, site, info)
	}
	cases := []struct {
		name, files string
		want        []string
	}{
		{name: "nvidia runtime wheel gives the minor",
			files: `[{path: ` + site + `/nvidia_cuda_runtime_cu12-12.1.105.dist-info/METADATA, content: ""}, {path: ` + site + `/nvidia_cudnn_cu12-8.9.2.26.dist-info/METADATA, content: ""}]`,
			want:  []string{"nvidia-cuda-runtime-cu12 12.1.105 cuda=12.1 " + site + "/nvidia_cuda_runtime_cu12-12.1.105.dist-info"}},
		{name: "nvidia library wheel alone gives the major",
			files: `[{path: ` + site + `/nvidia_cudnn_cu11-8.5.0.96.dist-info/METADATA, content: ""}]`,
			want:  []string{"nvidia-cudnn-cu11 8.5.0.96 cuda=11 " + site + "/nvidia_cudnn_cu11-8.5.0.96.dist-info"}},
		{name: "nvidia cuda component gives the minor without the runtime, the first of them",
			files: `[{path: ` + site + `/nvidia_cudnn_cu12-8.9.2.26.dist-info/METADATA, content: ""}, {path: ` + site + `/nvidia_cuda_nvrtc_cu12-12.4.127.dist-info/METADATA, content: ""}, {path: ` + site + `/nvidia_cuda_cupti_cu12-12.1.105.dist-info/METADATA, content: ""}]`,
			want:  []string{"nvidia-cuda-cupti-cu12 12.1.105 cuda=12.1 " + site + "/nvidia_cuda_cupti_cu12-12.1.105.dist-info"}},
		{name: "tensorflow CUDA build",
			files: `[` + tfBuild(`collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('cuda_compute_capabilities', ['sm_60', 'compute_90']), ('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])`) +
				`, {path: ` + site + `/tensorflow-2.16.1.dist-info/METADATA, content: ""}]`,
			want: []string{"tensorflow 2.16.1 cuda=12.3 " + site + "/tensorflow/python/platform/build_info.py"}},
		{name: "tensorflow CPU build",
			files: `[` + tfBuild(`collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)])`) + `]`,
			want:  []string{"tensorflow  cuda= " + site + "/tensorflow/python/platform/build_info.py cpu:'is_cuda_build': False"}},
		{name: "tensorflow-cpu version from its own dist-info among others",
			files: `[` + tfBuild(`collections.OrderedDict([('is_cuda_build', False)])`) +
				`, {path: ` + site + `/numpy-1.26.4.dist-info/METADATA, content: ""}, {path: ` + site + `/tensorflow_cpu-2.15.0.dist-info/METADATA, content: ""}]`,
			want: []string{"tensorflow 2.15.0 cuda= " + site + "/tensorflow/python/platform/build_info.py cpu:'is_cuda_build': False"}},
		{name: "tensorflow windows build version is not read",
			files: `[` + tfBuild(`{'cuda_version': '64_101', 'is_cuda_build': True}`) + `]`},
		{name: "onnxruntime-gpu",
			files: `[{path: ` + site + `/onnxruntime/capi/build_and_package_info.py, content: "package_name = 'onnxruntime-gpu'\n__version__ = '1.18.0'\ncuda_version = '12.2'\ncudart_version = 12020\n"}]`,
			want:  []string{"onnxruntime-gpu 1.18.0 cuda=12.2 " + site + "/onnxruntime/capi/build_and_package_info.py"}},
		{name: "onnxruntime CPU",
			files: `[{path: ` + site + `/onnxruntime/capi/build_and_package_info.py, content: "package_name = 'onnxruntime'\n__version__ = '1.22.0'\n"}]`,
			want:  []string{"onnxruntime 1.22.0 cuda= " + site + "/onnxruntime/capi/build_and_package_info.py cpu:package_name = 'onnxruntime' and no cuda_version"}},
		{name: "jax plugin",
			files: `[{path: ` + site + `/jax_cuda12_plugin-0.4.30.dist-info/METADATA, content: ""}, {path: ` + site + `/jax_cuda12_pjrt-0.4.30.dist-info/METADATA, content: ""}]`,
			want: []string{"jax-cuda12-pjrt 0.4.30 cuda=12 " + site + "/jax_cuda12_pjrt-0.4.30.dist-info",
				"jax-cuda12-plugin 0.4.30 cuda=12 " + site + "/jax_cuda12_plugin-0.4.30.dist-info"}},
		{name: "jaxlib local version",
			files: `[{path: ` + site + `/jaxlib-0.4.23+cuda12.cudnn89.dist-info/METADATA, content: ""}]`,
			want:  []string{"jaxlib 0.4.23+cuda12.cudnn89 cuda=12 " + site + "/jaxlib-0.4.23+cuda12.cudnn89.dist-info"}},
		{name: "none", files: `[{path: ` + site + `/requests-2.32.3.dist-info/METADATA, content: ""}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := tc.files[:len(tc.files)-1] + `, {path: /app/main.py, content: "import json\n"}]`
			_, a := openImage(t, files, launch.Spec{Argv: []string{"python3", "/app/main.py"}}, nil)
			var got []string
			for _, f := range a.Frameworks {
				line := fmt.Sprintf("%s %s cuda=%s %s", f.Name, f.Version, f.CUDA, f.Path)
				if f.CPUEvidence != "" {
					line += " cpu:" + f.CPUEvidence
				}
				got = append(got, line)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("frameworks:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestOtherSite(t *testing.T) {
	files := `[{path: /usr/local/lib/python3.10/site-packages/torch/__init__.py, content: ""},
	  {path: /usr/local/lib/python3.10/site-packages/torch-2.4.1.dist-info/top_level.txt, content: "functorch\ntorch\ntorchgen\n"},
	  {path: /usr/local/lib/python3.10/site-packages/cv2/__init__.py, content: ""},
	  {path: /usr/local/lib/python3.10/site-packages/opencv_python-4.10.0.84.dist-info/top_level.txt, content: "cv2\n"},
	  {path: /usr/lib/python3/dist-packages/yaml/__init__.py, content: ""},
	  {path: /usr/lib/python3/dist-packages/PyYAML-6.0.1.egg-info/top_level.txt, content: "_yaml\nyaml\n"},
	  {path: /app/main.py, content: "import torch\nimport cv2\nimport yaml\nimport absent\n"}]`
	_, a := openImage(t, files, launch.Spec{Argv: []string{"python3", "/app/main.py"}}, nil)
	var got []string
	for _, p := range a.Problems {
		line := p.Module
		for _, other := range p.OtherSites {
			line += " " + other.File + " (" + other.Dist + ")"
		}
		got = append(got, line)
	}
	want := []string{"torch /usr/local/lib/python3.10/site-packages/torch (torch 2.4.1)",
		"cv2 /usr/local/lib/python3.10/site-packages/cv2 (opencv_python 4.10.0.84)",
		"yaml /usr/lib/python3/dist-packages/yaml (PyYAML 6.0.1)", "absent"}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
}

// TestVLLMConsoleScript: the official vLLM image's ENTRYPOINT is `vllm
// serve`, a console script: its interpreter's frameworks are the server's,
// and a vllm package it cannot import is a missing module.
func TestVLLMConsoleScript(t *testing.T) {
	const site = "/usr/local/lib/python3.11/site-packages"
	script := `{path: /usr/local/bin/vllm, mode: "0755", content: "#!/usr/local/bin/python3.11\nimport sys\nfrom vllm.entrypoints.cli.main import main\nsys.exit(main())\n"}`
	torch := `{path: ` + site + `/torch/version.py, content: "__version__ = '2.9.0+cu128'\ncuda: Optional[str] = '12.8'\n"}`
	spec := launch.Spec{Argv: []string{"vllm", "serve", "Qwen/Qwen2.5-7B-Instruct"}}
	_, a := openImage(t, `[`+script+`, `+torch+`, {path: `+site+`/vllm/__init__.py, content: ""}]`, spec, nil)
	if len(a.Frameworks) != 1 || a.Frameworks[0].Name != "torch" || a.Frameworks[0].Version != "2.9.0+cu128" || a.Frameworks[0].CUDA != "12.8" {
		t.Errorf("frameworks: %+v", a.Frameworks)
	}
	if len(a.Problems) != 0 {
		t.Errorf("problems: %v", summary(a))
	}
	_, missing := openImage(t, `[`+script+`, `+torch+`]`, spec, nil)
	if got := summary(missing); !slices.Equal(got, []string{"module vllm"}) {
		t.Errorf("without the vllm package: %v", got)
	}
}

// TestOtherSiteUser: a module pip installed with --user as root is in
// root's user site, not the one the app's user looks in, behind /root; a
// venv's site under /opt is another Python's.
func TestOtherSiteUser(t *testing.T) {
	files := `[{path: /etc/passwd, content: "root:x:0:0::/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n"},
	  {path: /root, dir: true, mode: "0700"},
	  {path: /root/.local/lib/python3.11/site-packages/requests/__init__.py, content: ""},
	  {path: /opt/tools/lib/python3.10/site-packages/helper.py, content: ""},
	  {path: /app/main.py, content: "import requests\nimport helper\n"}]`
	user := int64(1000)
	_, a := openImage(t, files, launch.Spec{Argv: []string{"python3", "/app/main.py"}, RunAsUser: &user}, nil)
	if len(a.Problems) != 2 || len(a.Problems[0].OtherSites) != 1 || len(a.Problems[1].OtherSites) != 1 {
		t.Fatalf("problems %q, want requests and helper, each with one other site", summary(a))
	}
	if other := a.Problems[0].OtherSites[0]; other.UserHome != "/root" || len(other.Blocked) != 1 || other.Blocked[0].Path != "/root" {
		t.Errorf("requests: user home %q, blocked %+v; want /root, blocked at /root", other.UserHome, other.Blocked)
	}
	if other := a.Problems[1].OtherSites[0]; other.File != "/opt/tools/lib/python3.10/site-packages/helper.py" || other.UserHome != "" {
		t.Errorf("helper: %+v", other)
	}
}
