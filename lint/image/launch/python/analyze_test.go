package python

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// baseLayer is a CPython 3.11 under /usr/local, as the python:3.11 images
// lay it out.
const baseLayer = `
- {path: /bin, symlink: usr/bin}
- {path: /usr/bin/, dir: true}
- {path: /usr/bin/sh, elf: stub-amd64}
- {path: /etc/passwd, content: "root:x:0:0:root:/root:/bin/sh\n"}
- {path: /usr/local/bin/python3.11, elf: stub-amd64}
- {path: /usr/local/bin/python3, symlink: python3.11}
- {path: /usr/local/bin/python, symlink: python3}
- {path: /usr/local/lib/python3.11/os.py, content: "import abc\n"}
- {path: /usr/local/lib/python3.11/lib-dynload/, dir: true}
- {path: /usr/local/lib/python3.11/site-packages/numpy/__init__.py, content: ""}
`

// openImage builds a two-layer image (the base, then files) and reads it
// as a docker-save tarball, with the targeted reads the analysis asks for.
func openImage(t *testing.T, files string, spec launch.Spec, mounts []string) (*image.Image, *Analysis) {
	t.Helper()
	return openImageFor(t, files, Context{Spec: spec, Mounts: mounts})
}

// openImageFor is openImage for a container described in full.
func openImageFor(t *testing.T, files string, ctx Context) (*image.Image, *Analysis) {
	t.Helper()
	var base, extra []imagetest.FileSpec
	if err := yaml.UnmarshalStrict([]byte(baseLayer), &base); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(files), &extra); err != nil {
		t.Fatal(err)
	}
	var builder *imagetest.ELFBuilder
	for _, file := range extra {
		if slices.Contains(imagetest.ELFKinds, file.ELF) {
			builder = imagetest.ELF(t) // a real libc or program: compiled, or the test is skipped without gcc
		}
	}
	built, err := imagetest.Build(&imagetest.ImageSpec{Ref: "registry.example.com/app:1", Layers: []imagetest.LayerSpec{{Files: base}, {Files: extra}}}, builder)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "image.tar")
	if err := imagetest.WriteTarball(file, built, ""); err != nil {
		t.Fatal(err)
	}
	if ctx.Spec.Env == nil {
		ctx.Spec.Env = []string{"PATH=" + launch.DefaultPath}
	}
	analyze := func(img *image.Image) *Analysis {
		start := launch.Analyze(img, ctx.Spec, "amd64")
		return Analyze(img, ctx, start.Runs)
	}
	img, err := image.Open(context.Background(), "registry.example.com/app:1", file, image.Options{
		Needs: func(img *image.Image) []*rootfs.Node { return analyze(img).Needs },
	})
	if err != nil {
		t.Fatal(err)
	}
	return img, analyze(img)
}

// summary renders problems as "KIND module-or-path@file:line".
func summary(a *Analysis) []string {
	var out []string
	for _, p := range a.Problems {
		kind := map[Kind]string{FileMissing: "file", ModuleMissing: "module", ImportMissing: "import"}[p.Kind]
		switch {
		case p.Reason == NoMain:
			out = append(out, kind+" no-main "+p.Target)
		case p.Reason == AttrMissing:
			out = append(out, kind+" attr "+p.Target+":"+p.Attr)
		case p.Reason == RelativeInScript:
			out = append(out, fmt.Sprintf("%s relative %s@%s:%d", kind, p.Target, p.Path, p.Line))
		case p.Reason == RelativeBeyondTop:
			out = append(out, fmt.Sprintf("%s beyond %q %s@%s:%d", kind, p.Module, p.Target, p.Path, p.Line))
		case p.Kind == ImportMissing:
			out = append(out, fmt.Sprintf("%s %s@%s:%d", kind, p.Module, p.Path, p.Line))
		case p.Kind == ModuleMissing:
			out = append(out, kind+" "+p.Module)
		default:
			out = append(out, kind+" "+p.Path)
		}
	}
	return out
}

func TestAnalyze(t *testing.T) {
	cases := []struct {
		name      string
		files     string
		argv      []string
		env       []string
		dir       string
		mounts    []string
		user      int64
		want      []string
		unchecked string // a substring of the unchecked reasons, "" for none
	}{
		{name: "script present", files: `[{path: /app/main.py, content: "import numpy\n"}]`, argv: []string{"python", "/app/main.py"}},
		{name: "script missing", files: `[{path: /app/main.py, content: ""}]`, argv: []string{"python3", "/app/serve.py"},
			want: []string{"file /app/serve.py"}},
		{name: "relative script from the working dir", files: `[{path: /app/serve.py, content: ""}]`, argv: []string{"python3", "serve.py"},
			dir: "/srv", want: []string{"file /srv/serve.py"}},
		{name: "relative script found", files: `[{path: /app/serve.py, content: ""}]`, argv: []string{"python3", "-u", "serve.py"}, dir: "/app"},
		{name: "script on a volume", files: `[]`, argv: []string{"python", "/scripts/run.py"}, mounts: []string{"/scripts"},
			unchecked: "volume mounted at /scripts"},
		{name: "directory without __main__", files: `[{path: /app/x.py, content: ""}]`, argv: []string{"python", "/app"}, want: []string{"file no-main /app"}},
		{name: "-m missing", files: `[{path: /app/server/__init__.py, content: ""}]`, argv: []string{"python", "-m", "server.main"}, dir: "/app",
			want: []string{"module server.main"}},
		{name: "-m stdlib", files: `[]`, argv: []string{"python", "-m", "http.server"}},
		{name: "-m namespace package module", files: `[{path: /app/svc/api.py, content: "import numpy\n"}]`, argv: []string{"python", "-m", "svc.api"}, dir: "/app"},
		{name: "-m package without main", files: `[{path: /app/svc/__init__.py, content: ""}]`, argv: []string{"python", "-m", "svc"}, dir: "/app",
			want: []string{"module no-main svc"}},
		{name: "PYTHONPATH", files: `[{path: /opt/code/svc.py, content: "import torch\n"}]`, argv: []string{"python", "-m", "svc"},
			env: []string{"PATH=" + launch.DefaultPath, "PYTHONPATH=/opt/code"}, want: []string{"import torch@/opt/code/svc.py:1"}},
		{name: "-I ignores PYTHONPATH", files: `[{path: /opt/code/svc.py, content: ""}]`, argv: []string{"python", "-I", "-m", "svc"},
			env: []string{"PATH=" + launch.DefaultPath, "PYTHONPATH=/opt/code"}, want: []string{"module svc"}},
		{name: "import guarded", files: `[{path: /app/main.py, content: "try:\n    import torch\nexcept ImportError:\n    torch = None\n"}]`,
			argv: []string{"python", "/app/main.py"}},
		{name: "import after sys.path change", files: `[{path: /app/main.py, content: "import sys\nsys.path.append('/x')\nimport torch\n"}]`,
			argv: []string{"python", "/app/main.py"}, unchecked: "changes sys.path"},
		{name: "an app module changes sys.path", files: `[{path: /app/main.py, content: "import paths\nimport vendored\n"}, {path: /app/paths.py, content: "import sys\nsys.path.insert(0, '/opt/vendor')\n"}]`,
			argv: []string{"python", "/app/main.py"}, unchecked: "/app/paths.py changes sys.path at line 2"},
		{name: "python 2", files: `[{path: /usr/bin/python2.7, elf: stub-amd64}, {path: /usr/lib/python2.7/os.py, content: ""}, {path: /app/main.py, content: "import urllib2\n"}]`,
			argv: []string{"/usr/bin/python2.7", "/app/main.py"}, unchecked: "Python 2.7"},
		{name: "user site from the passwd home", files: `[{path: /etc/passwd, content: "root:x:0:0::/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n"}, {path: /app/main.py, content: "import requests\n"}, {path: /home/app/.local/lib/python3.11/site-packages/requests/__init__.py, content: ""}]`,
			argv: []string{"python", "/app/main.py"}, user: 1000},
		{name: "extension for another python", files: `[{path: /app/main.py, content: "import fast\n"}, {path: /app/fast.cpython-310-x86_64-linux-gnu.so, content: "x"}]`,
			argv: []string{"python", "/app/main.py"}, want: []string{"import fast@/app/main.py:1"}},
		{name: "extension for this python", files: `[{path: /app/main.py, content: "import fast\n"}, {path: /app/fast.cpython-311-x86_64-linux-gnu.so, content: "x"}]`,
			argv: []string{"python", "/app/main.py"}},
		{name: "pth file adds a dir", files: `[{path: /app/main.py, content: "import shared\n"}, {path: /usr/local/lib/python3.11/site-packages/extra.pth, content: "/opt/lib\n"}, {path: /opt/lib/shared.py, content: ""}]`,
			argv: []string{"python", "/app/main.py"}},
		{name: "pth hook", files: `[{path: /app/main.py, content: "import mylib\n"}, {path: /usr/local/lib/python3.11/site-packages/__editable__.mylib-1.0.pth, content: "import __editable___mylib_1_0_finder; __editable___mylib_1_0_finder.install()\n"}]`,
			argv: []string{"python", "/app/main.py"}, unchecked: "import finder"},
		{name: "sitecustomize changes the path", files: `[{path: /app/main.py, content: "import mylib\n"}, {path: /usr/local/lib/python3.11/sitecustomize.py, content: "import sys\nsys.path.append('/opt/lib')\n"}]`,
			argv: []string{"python", "/app/main.py"}, unchecked: "sitecustomize.py runs code at start"},
		{name: "sitecustomize adds a site dir", files: `[{path: /app/main.py, content: "import mylib\n"}, {path: /usr/local/lib/python3.11/sitecustomize.py, content: "import site\nsite.addsitedir('/opt/lib')\n"}]`,
			argv: []string{"python", "/app/main.py"}, unchecked: "sitecustomize.py runs code at start"},
		{name: "usercustomize installs a finder", files: `[{path: /app/main.py, content: "import mylib\n"}, {path: /usr/local/lib/python3.11/site-packages/usercustomize.py, content: "import sys\nsys.meta_path.insert(0, Finder())\n"}]`,
			argv: []string{"python", "/app/main.py"}, unchecked: "usercustomize.py runs code at start"},
		{name: "pth file names a zip", files: `[{path: /app/main.py, content: "import mylib\n"}, {path: /usr/local/lib/python3.11/site-packages/deps.pth, content: "/opt/deps.zip\n"}, {path: /opt/deps.zip, content: "PK"}]`,
			argv: []string{"python", "/app/main.py"}, unchecked: "/opt/deps.zip is a zip archive on the import path"},
		{name: "RHEL layout", files: `[{path: /usr/bin/python3.11, elf: stub-amd64}, {path: /usr/lib64/python3.11/os.py, content: ""}, {path: /usr/lib64/python3.11/lib-dynload/, dir: true}, {path: /usr/local/lib64/python3.11/site-packages/torch/__init__.py, content: ""}, {path: /usr/local/lib/python3.11/site-packages/fastapi/__init__.py, content: ""}, {path: /app/main.py, content: "import torch\nimport fastapi\nimport json\n"}]`,
			argv: []string{"/usr/bin/python3.11", "/app/main.py"}},
		{name: "user site", files: `[{path: /app/main.py, content: "import requests\n"}, {path: /root/.local/lib/python3.11/site-packages/requests/__init__.py, content: ""}]`,
			argv: []string{"python", "/app/main.py"}},
		{name: "local submodule missing", files: `[{path: /app/main.py, content: "import app.routes\n"}, {path: /app/app/__init__.py, content: ""}]`,
			argv: []string{"python", "/app/main.py"}, want: []string{"import app.routes@/app/main.py:1"}},
		{name: "relative import in a package module", files: `[{path: /app/pkg/__init__.py, content: ""}, {path: /app/pkg/main.py, content: "from .util import x\nfrom . import y\n"}]`,
			argv: []string{"python", "-m", "pkg.main"}, dir: "/app", want: []string{"import pkg.util@/app/pkg/main.py:1"}},
		{name: "uvicorn app dir", files: `[{path: /usr/local/bin/uvicorn, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /opt/svc/main.py, content: "import numpy\napp = numpy\n"}]`,
			argv: []string{"uvicorn", "--app-dir", "/opt/svc", "main:app"}},
		{name: "uvicorn missing app", files: `[{path: /usr/bin/env, elf: stub-amd64}, {path: /usr/local/bin/uvicorn, mode: "0755", content: "#!/usr/bin/env python3\n"}, {path: /opt/svc/main.py, content: ""}]`,
			argv: []string{"uvicorn", "main:app"}, dir: "/app", want: []string{"module main"}},
		{name: "uvicorn attribute missing", files: `[{path: /usr/local/bin/uvicorn, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /app/main.py, content: "import numpy\napi = numpy.zeros(1)\n"}]`,
			argv: []string{"uvicorn", "main:app"}, dir: "/app", want: []string{"module attr main:app"}},
		{name: "gunicorn factory present", files: `[{path: /usr/local/bin/gunicorn, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /app/wsgi.py, content: "def create_app():\n    return None\n"}]`,
			argv: []string{"gunicorn", "wsgi:create_app()"}, dir: "/app"},
		{name: "attribute from a star import", files: `[{path: /usr/local/bin/uvicorn, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /app/main.py, content: "from numpy import *\n"}]`,
			argv: []string{"uvicorn", "main:app"}, dir: "/app"},
		{name: "venv", files: `[{path: /opt/venv/pyvenv.cfg, content: "home = /usr/local/bin\n"}, {path: /opt/venv/bin/python, symlink: /usr/local/bin/python3}, {path: /opt/venv/lib/python3.11/site-packages/torch/__init__.py, content: ""}, {path: /app/main.py, content: "import torch\nimport numpy\n"}]`,
			argv: []string{"/opt/venv/bin/python", "/app/main.py"}, want: []string{"import numpy@/app/main.py:2"}},
		{name: "venv with system site", files: `[{path: /opt/venv/pyvenv.cfg, content: "home = /usr/local/bin\ninclude-system-site-packages = true\n"}, {path: /opt/venv/bin/python, symlink: /usr/local/bin/python3}, {path: /app/main.py, content: "import numpy\n"}]`,
			argv: []string{"/opt/venv/bin/python", "/app/main.py"}},
		{name: "wrapper exports PYTHONPATH", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\nexport PYTHONPATH=/srv/lib\nexec python -m svc\n"}, {path: /srv/lib/svc.py, content: ""}]`,
			argv: []string{"/start.sh"}},
		{name: "wrapper sources a file", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\n. /etc/profile.d/app.sh\nexec python -m svc\n"}]`,
			argv: []string{"/start.sh"}, unchecked: "sourced file"},
		{name: "a branch not taken", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\nif [ \"$1\" = train ]; then\n  exec python /app/train.py\nfi\nexec python /app/serve.py\n"}, {path: /app/serve.py, content: ""}]`,
			argv: []string{"/start.sh"}, unchecked: "another branch starts"},
		{name: "every branch fails", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\nif [ \"$1\" = train ]; then\n  exec python /app/train.py\nfi\nexec python /app/serve.py\n"}]`,
			argv: []string{"/start.sh"}, want: []string{"file /app/train.py", "file /app/serve.py"}},
		{name: "streamlit file missing", files: `[{path: /usr/local/bin/streamlit, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /app/demo.py, content: ""}]`,
			argv: []string{"streamlit", "run", "app.py"}, dir: "/app", want: []string{"file /app/app.py"}},
		{name: "sourceless module", files: `[{path: /app/main.py, content: "import compiled\n"}, {path: /app/compiled.pyc, content: "x"}]`,
			argv: []string{"python", "/app/main.py"}},
		// A module may put its submodules in sys.modules itself (as os does
		// os.path, six six.moves): a plain module's dotted name is not looked
		// for, an app's own either.
		{name: "submodule of a plain module", files: `[{path: /app/main.py, content: "import compat.moves\n"}, {path: /app/compat.py, content: "import sys\n"}]`,
			argv: []string{"python", "/app/main.py"}},
		{name: "a volume where the module would be", files: `[{path: /app/main.py, content: "import mylib\n"}]`, argv: []string{"python", "/app/main.py"},
			mounts: []string{"/app/mylib"}, unchecked: "a volume is mounted at /app/mylib"},
		{name: "the first branch starts, a later one fails", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\nif [ \"$1\" = serve ]; then\n  exec python /app/serve.py\nfi\nexec python /app/train.py\n"}, {path: /app/serve.py, content: ""}]`,
			argv: []string{"/start.sh"}, unchecked: "another branch starts"},
		{name: "a server started in the background fails", files: `[{path: /usr/bin/tail, elf: stub-amd64}, {path: /start.sh, mode: "0755", content: "#!/bin/sh\npython /app/serve.py &\nexec tail -f /dev/null\n"}]`,
			argv: []string{"/start.sh"}, want: []string{"file /app/serve.py"}},
		{name: "a branch fails, the other starts a background worker", files: `[{path: /usr/bin/tail, elf: stub-amd64}, {path: /start.sh, mode: "0755", content: "#!/bin/sh\nif [ \"$1\" = train ]; then\n  exec python /app/train.py\nfi\npython /app/worker.py &\nexec tail -f /dev/null\n"}, {path: /app/worker.py, content: ""}]`,
			argv: []string{"/start.sh"}, unchecked: "another branch starts"},
		{name: "wrapper changes directory", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\ncd /srv\nexec python main.py\n"}, {path: /srv/main.py, content: ""}]`,
			argv: []string{"/start.sh"}},
		{name: "wrapper changes to a directory known at run time", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\ncd \"$(cat /etc/appdir)\"\nexec python serve.py\n"}]`,
			argv: []string{"/start.sh"}, unchecked: "the working dir is known only at run time"},
		{name: "wrapper sets PYTHONPATH at run time", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\nexport PYTHONPATH=\"$(cat /etc/pythonpath)\"\nexec python /app/main.py\n"}, {path: /app/main.py, content: "import mylib\n"}]`,
			argv: []string{"/start.sh"}, unchecked: "sets PYTHONPATH at run time"},
		{name: "wrapper sets another variable at run time", files: `[{path: /start.sh, mode: "0755", content: "#!/bin/sh\nexport MODEL=\"$(cat /etc/model)\"\nexec python /app/main.py\n"}, {path: /app/main.py, content: "import mylib\n"}]`,
			argv: []string{"/start.sh"}, want: []string{"import mylib@/app/main.py:1"}},
		{name: "su-exec sets HOME to the user's", files: `[{path: /sbin/su-exec, elf: stub-amd64}, {path: /etc/passwd, content: "root:x:0:0::/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n"}, {path: /start.sh, mode: "0755", content: "#!/bin/sh\nexec su-exec app python /app/main.py\n"}, {path: /app/main.py, content: "import requests\n"}, {path: /home/app/.local/lib/python3.11/site-packages/requests/__init__.py, content: ""}]`,
			argv: []string{"/start.sh"}, env: []string{"PATH=" + launch.DefaultPath, "HOME=/root"}},
		{name: "console script through env with options", files: `[{path: /usr/bin/env, elf: stub-amd64}, {path: /usr/local/bin/uvicorn, mode: "0755", content: "#!/usr/bin/env -S PYTHONUNBUFFERED=1 python3 -u\n"}, {path: /opt/svc/main.py, content: ""}]`,
			argv: []string{"uvicorn", "main:app"}, dir: "/app", want: []string{"module main"}},
		{name: "-I does not put the working dir first", files: `[{path: /app/svc.py, content: ""}]`, argv: []string{"python", "-I", "-m", "svc"}, dir: "/app",
			want: []string{"module svc"}},
		{name: "script without .py run by its #! python", files: `[{path: /app/serve, mode: "0755", content: "#!/usr/local/bin/python3\nimport torch\n"}]`,
			argv: []string{"python", "/app/serve"}, want: []string{"import torch@/app/serve:2"}},
		{name: "script without .py run by its #! env python", files: `[{path: /usr/bin/env, elf: stub-amd64}, {path: /app/serve, mode: "0755", content: "#!/usr/bin/env python3\nimport torch\n"}]`,
			argv: []string{"python", "/app/serve"}, want: []string{"import torch@/app/serve:2"}},
		{name: "script without .py, not python", files: `[{path: /app/serve, mode: "0755", content: "#!/bin/sh\nimport torch\n"}]`,
			argv: []string{"python", "/app/serve"}},
		{name: "-m submodule of a stdlib package missing", files: `[{path: /usr/local/lib/python3.11/http/__init__.py, content: ""}, {path: /usr/local/lib/python3.11/http/server.py, content: ""}]`,
			argv: []string{"python", "-m", "http.serve"}, want: []string{"module http.serve"}},
		{name: "gunicorn's default application missing", files: `[{path: /usr/local/bin/gunicorn, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /app/wsgi.py, content: "app = None\n"}]`,
			argv: []string{"gunicorn", "wsgi"}, dir: "/app", want: []string{"module attr wsgi:application"}},
		{name: "torchserve archive in the model store", files: `[{path: /usr/local/bin/torchserve, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /models/resnet.mar, content: "PK"}]`,
			argv: []string{"torchserve", "--start", "--model-store", "/models", "--models", "resnet.mar"}},
		{name: "nodejs resolves the .js", files: `[{path: /usr/bin/nodejs, elf: stub-amd64}, {path: /srv/index.js, content: ""}]`, argv: []string{"nodejs", "/srv/index"}},
		{name: "fastapi runs a package directory", files: `[{path: /usr/local/bin/fastapi, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /app/api/__init__.py, content: ""}]`,
			argv: []string{"fastapi", "run", "api"}, dir: "/app"},
		{name: "jar in a directory known at run time", files: `[{path: /usr/local/bin/java, elf: stub-amd64}, {path: /start.sh, mode: "0755", content: "#!/bin/sh\ncd \"$(cat /etc/appdir)\"\nexec java -jar app.jar\n"}]`,
			argv: []string{"/start.sh"}, unchecked: "the working dir is known only at run time"},
		{name: "su-exec runs the script as the user it switches to", files: `[{path: /sbin/su-exec, elf: stub-amd64}, {path: /etc/passwd, content: "root:x:0:0::/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n"}, {path: /start.sh, mode: "0755", content: "#!/bin/sh\nexec su-exec app python /app/main.py\n"}, {path: /app/main.py, mode: "0600", content: ""}]`,
			argv: []string{"/start.sh"}, want: []string{"file /app/main.py"}},
		{name: "from a package import a module", files: `[{path: /app/main.py, content: "from app import routes\n"}, {path: /app/app/__init__.py, content: ""}, {path: /app/app/routes.py, content: "import missing_mod\nfrom .models import m\n"}]`,
			argv: []string{"python", "/app/main.py"}, want: []string{"import missing_mod@/app/app/routes.py:1", "import app.models@/app/app/routes.py:2"}},
		{name: "a module a package module imports relatively", files: `[{path: /app/app/__init__.py, content: ""}, {path: /app/app/main.py, content: "from .routes import router\n"}, {path: /app/app/routes.py, content: "import missing_mod\nfrom .models import m\n"}]`,
			argv: []string{"python", "-m", "app.main"}, dir: "/app", want: []string{"import missing_mod@/app/app/routes.py:1", "import app.models@/app/app/routes.py:2"}},
		{name: "relative import two levels up", files: `[{path: /app/a/__init__.py, content: ""}, {path: /app/a/b/__init__.py, content: ""}, {path: /app/a/b/c.py, content: "from ..x import y\n"}]`,
			argv: []string{"python", "-m", "a.b.c"}, dir: "/app", want: []string{"import a.x@/app/a/b/c.py:1"}},
		{name: "import before a sys.path change", files: `[{path: /app/main.py, content: "import mylib\nimport sys\nsys.path.append('/x')\nimport torch\n"}]`,
			argv: []string{"python", "/app/main.py"}, want: []string{"import mylib@/app/main.py:1"}, unchecked: "changes sys.path"},
		{name: "relative import in a script", files: `[{path: /app/main.py, content: "from .util import x\n"}, {path: /app/util.py, content: "x = 1\n"}]`,
			argv: []string{"python", "/app/main.py"}, want: []string{"import relative .util@/app/main.py:1"}},
		// importlib's _sanity_check and _resolve_name: a relative import
		// needs a package, with as many parts as it has dots.
		{name: "relative import in a top-level module", files: `[{path: /usr/local/bin/uvicorn, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /app/main.py, content: "from .routes import router\napp = router\n"}, {path: /app/routes.py, content: "router = None\n"}]`,
			argv: []string{"uvicorn", "main:app"}, dir: "/app", want: []string{`import beyond "" .routes@/app/main.py:1`}},
		{name: "from . import in a top-level module", files: `[{path: /app/main.py, content: "from . import models\n"}, {path: /app/models.py, content: ""}]`,
			argv: []string{"python", "-m", "main"}, dir: "/app", want: []string{`import beyond "" .@/app/main.py:1`}},
		{name: "relative import above the top-level package", files: `[{path: /app/a/__init__.py, content: ""}, {path: /app/a/c.py, content: "from ..x import y\n"}, {path: /app/x.py, content: "y = 1\n"}]`,
			argv: []string{"python", "-m", "a.c"}, dir: "/app", want: []string{`import beyond "a" ..x@/app/a/c.py:1`}},
		{name: "relative import in a package's __main__", files: `[{path: /app/svc/__init__.py, content: ""}, {path: /app/svc/__main__.py, content: "from .server import run\nfrom .missing import x\n"}, {path: /app/svc/server.py, content: ""}]`,
			argv: []string{"python", "-m", "svc"}, dir: "/app", want: []string{"import svc.missing@/app/svc/__main__.py:2"}},
		{name: "a followed module imports relatively from the top level", files: `[{path: /app/main.py, content: "import routes\n"}, {path: /app/routes.py, content: "from .models import m\n"}, {path: /app/models.py, content: "m = 1\n"}]`,
			argv: []string{"python", "/app/main.py"}, want: []string{`import beyond "" .models@/app/routes.py:1`}},
		{name: "node", files: `[{path: /usr/local/bin/node, elf: stub-amd64}, {path: /srv/index.js, content: ""}]`, argv: []string{"node", "/srv/index"}},
		{name: "java jar missing", files: `[{path: /usr/local/bin/java, elf: stub-amd64}]`, argv: []string{"java", "-jar", "app.jar"}, dir: "/opt",
			want: []string{"file /opt/app.jar"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := launch.Spec{Argv: c.argv, Env: c.env, WorkingDir: c.dir}
			if c.user != 0 {
				spec.RunAsUser = &c.user
			}
			_, analysis := openImage(t, c.files, spec, c.mounts)
			if got := summary(analysis); !slices.Equal(got, c.want) {
				t.Errorf("problems %q, want %q (unchecked: %v)", got, c.want, analysis.Unchecked)
			}
			var reasons []string
			for _, u := range analysis.Unchecked {
				reasons = append(reasons, u.Reason)
			}
			joined := strings.Join(reasons, "; ")
			switch {
			case c.unchecked == "" && joined != "":
				t.Errorf("unchecked: %s", joined)
			case c.unchecked != "" && !strings.Contains(joined, c.unchecked):
				t.Errorf("unchecked %q, want it to say %q", joined, c.unchecked)
			}
			if analysis.Entries == 0 {
				t.Error("the start was not recognised")
			}
		})
	}
}

// TestDeniedPackage: a package directory the user may not enter is
// imported as an empty namespace package (its __init__ cannot be
// stat'ed); a submodule below it is not found; an __init__ the user may
// not read fails the import.
func TestDeniedPackage(t *testing.T) {
	const files = `[{path: /app/secret, dir: true, mode: "0700"}, {path: /app/secret/__init__.py, content: ""}, {path: /app/secret/model.py, content: ""}, {path: /app/locked/__init__.py, mode: "0600", content: ""}, ` +
		`{path: /app/bare.py, content: "import secret\n"}, {path: /app/from_import.py, content: "from secret import model\n"}, {path: /app/submodule.py, content: "import secret.model\n"}, {path: /app/locked_init.py, content: "import locked\n"}, ` +
		`{path: /app/shadow, dir: true, mode: "0700"}, {path: /app/shadow/__init__.py, content: ""}, {path: /usr/local/lib/python3.11/site-packages/shadow/__init__.py, content: ""}, {path: /app/shadowed.py, content: "import shadow\n"}, ` +
		`{path: /app/twin, dir: true, mode: "0700"}, {path: /app/twin/__init__.py, content: ""}, {path: /app/twin.py, content: ""}, {path: /app/beside.py, content: "import twin\n"}]`
	cases := []struct {
		script, module, missing string
		namespace, from         bool
		names                   []string
	}{
		{script: "/app/bare.py", module: "secret", namespace: true},
		{script: "/app/from_import.py", module: "secret", namespace: true, from: true, names: []string{"model"}},
		{script: "/app/submodule.py", module: "secret.model", missing: "secret.model"},
		{script: "/app/locked_init.py", module: "locked"},
		{script: "/app/shadowed.py"},
		{script: "/app/beside.py"},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			user := int64(1000)
			_, analysis := openImage(t, files, launch.Spec{Argv: []string{"python", c.script}, WorkingDir: "/app", RunAsUser: &user}, nil)
			if c.module == "" {
				// Python imports the module past the namespace portion.
				if len(analysis.Problems) != 0 {
					t.Fatalf("problems %q, want none", summary(analysis))
				}
				return
			}
			if len(analysis.Problems) != 1 {
				t.Fatalf("problems %q, want one", summary(analysis))
			}
			p := analysis.Problems[0]
			if p.Reason != Unreadable || p.Module != c.module {
				t.Fatalf("problem %q (reason %d), want %s unreadable", summary(analysis), p.Reason, c.module)
			}
			if p.Denied.Namespace != c.namespace || p.Denied.Missing != c.missing || p.From != c.from || !slices.Equal(p.Names, c.names) {
				t.Errorf("namespace %v, missing %q, from %v %q; want %v, %q, %v %q", p.Denied.Namespace, p.Denied.Missing, p.From, p.Names,
					c.namespace, c.missing, c.from, c.names)
			}
		})
	}
}

// TestCeleryShortAppEquals: click gives -A the rest of its word, so
// `celery -A=proj worker` asks for the module "=proj", which no file
// provides, though proj.py is there.
func TestCeleryShortAppEquals(t *testing.T) {
	files := `[{path: /usr/local/bin/celery, mode: "0755", content: "#!/usr/local/bin/python3.11\nimport sys\nfrom celery.__main__ import main\nsys.exit(main())\n"},
	  {path: /usr/local/lib/python3.11/site-packages/celery/__init__.py, content: ""},
	  {path: /app/proj.py, content: "import json\n"}]`
	for argv, want := range map[string][]string{
		"celery -A=proj worker":    {"module =proj"},
		"celery -Aproj worker":     nil,
		"celery --app=proj worker": nil,
	} {
		_, a := openImage(t, files, launch.Spec{Argv: strings.Fields(argv), WorkingDir: "/app"}, nil)
		if got := summary(a); !slices.Equal(got, want) {
			t.Errorf("%s: problems %q, want %q", argv, got, want)
		}
	}
}

// TestProblemDetails pins what a problem says besides its kind: where
// relative paths were resolved from, what the image has instead, and
// what is out of the user's reach.
func TestProblemDetails(t *testing.T) {
	const uvicorn = `{path: /usr/local/bin/uvicorn, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}`
	joined := func(list []string) string { return strings.Join(list, " ") }
	cases := []struct {
		name, files string
		argv        []string
		dir         string
		user        int64
		detail      func(p Problem) string
		want        string
	}{
		{name: "working dir of a relative script", files: `[]`, argv: []string{"python3", "serve.py"}, dir: "/srv",
			detail: func(p Problem) string { return fmt.Sprintf("%s from %s store=%v", p.Path, p.WorkingDir, p.Store) },
			want:   "/srv/serve.py from /srv store=false"},
		{name: "an archive is looked for in the model store", files: `[{path: /usr/local/bin/torchserve, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}]`,
			argv: []string{"torchserve", "--start", "--model-store", "/models", "--models", "resnet.mar"}, dir: "/app",
			detail: func(p Problem) string { return fmt.Sprintf("%s from %s store=%v", p.Path, p.WorkingDir, p.Store) },
			want:   "/models/resnet.mar from /models store=true"},
		{name: "siblings: files of the extension, sorted, at most five",
			files: `[{path: /app/0.py/x.py, content: ""}, {path: /app/notes.txt, content: ""}, {path: /app/f.py, content: ""}, {path: /app/e.py, content: ""}, {path: /app/d.py, content: ""}, {path: /app/c.py, content: ""}, {path: /app/b.py, content: ""}, {path: /app/a.py, content: ""}]`,
			argv:  []string{"python3", "/app/serve.py"}, detail: func(p Problem) string { return joined(p.Siblings) },
			want: "/app/a.py /app/b.py /app/c.py /app/d.py /app/e.py"},
		{name: "siblings: none for a file without extension", files: `[{path: /app/start, content: ""}]`,
			argv: []string{"python3", "/app/serve"}, detail: func(p Problem) string { return joined(p.Siblings) }},
		{name: "elsewhere: the module in the working dir's subdirectories",
			files: `[{path: /app/.git/server.py, content: ""}, {path: /app/__pycache__/server.py, content: ""}, {path: /app/deep/a/b/server.py, content: ""}, {path: /app/lib/x/server.py, content: ""}, ` +
				`{path: /app/ns/server/model.py, content: ""}, {path: /app/readme.txt, content: ""}, {path: /app/src/server/__init__.py, content: ""}, {path: /app/zz/server.py, content: ""}]`,
			argv: []string{"python3", "-m", "server"}, dir: "/app", detail: func(p Problem) string { return joined(p.Elsewhere) },
			want: "/app/lib/x/server.py /app/ns/server /app/src/server"},
		{name: "elsewhere: not looked for from /", files: `[{path: /srv/server.py, content: ""}]`,
			argv: []string{"python3", "-m", "server"}, detail: func(p Problem) string { return joined(p.Elsewhere) }},
		{name: "an app package the user may not enter", files: `[` + uvicorn + `, {path: /app/secret, dir: true, mode: "0700"}, {path: /app/secret/__init__.py, content: "app = None\n"}]`,
			argv: []string{"uvicorn", "secret:app"}, dir: "/app", user: 1000,
			detail: func(p Problem) string { return fmt.Sprintf("reason %d %s attr %q", p.Reason, p.Path, p.Attr) },
			want:   fmt.Sprintf("reason %d /app/secret attr %q", Unreadable, "app")},
		{name: "an app module the user may not read", files: `[` + uvicorn + `, {path: /app/locked.py, mode: "0600", content: "app = None\n"}]`,
			argv: []string{"uvicorn", "locked:app"}, dir: "/app", user: 1000,
			detail: func(p Problem) string { return fmt.Sprintf("reason %d %s attr %q", p.Reason, p.Path, p.Attr) },
			want:   fmt.Sprintf("reason %d /app/locked.py attr %q", Unreadable, "")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := launch.Spec{Argv: c.argv, WorkingDir: c.dir}
			if c.user != 0 {
				spec.RunAsUser = &c.user
			}
			_, analysis := openImage(t, c.files, spec, nil)
			if len(analysis.Problems) != 1 {
				t.Fatalf("problems %q, want one (unchecked: %v)", summary(analysis), analysis.Unchecked)
			}
			if got := c.detail(analysis.Problems[0]); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestUncheckedFor(t *testing.T) {
	a := &Analysis{Unchecked: []Unchecked{{Reason: "every check"}, {Kind: FileMissing, Reason: "file"}, {Kind: ModuleMissing, Reason: "module"}}}
	if got, want := a.UncheckedFor(FileMissing), []string{"every check", "file"}; !slices.Equal(got, want) {
		t.Errorf("UncheckedFor(FileMissing) = %q, want %q", got, want)
	}
	if got, want := a.UncheckedFor(ImportMissing), []string{"every check"}; !slices.Equal(got, want) {
		t.Errorf("UncheckedFor(ImportMissing) = %q, want %q", got, want)
	}
}

// TestAnalyzeContext: what the container's spec adds to the image, the
// Ray Serve applications and the env the cluster resolves.
func TestAnalyzeContext(t *testing.T) {
	const rayFiles = `[{path: /usr/local/bin/ray, mode: "0755", content: "#!/usr/local/bin/python3.11\n"}, {path: /usr/local/lib/python3.11/site-packages/ray/__init__.py, content: ""}, {path: /app/main.py, content: "import mylib\n"}]`
	cases := []struct {
		name      string
		argv      []string
		ctx       Context
		want      []string
		entries   int
		unchecked map[Kind]string // a substring of the reasons for the kind, "" for none
	}{
		{name: "serve application missing", argv: []string{"ray", "start", "--head"},
			ctx:  Context{ServeApps: []ServeApp{{Name: "llm", ImportPath: "serve_app:app"}, {Name: "bad", ImportPath: "nomodule"}}},
			want: []string{"module serve_app (app llm)"}, entries: 2},
		{name: "serve config unreadable", argv: []string{"ray", "start", "--head"}, ctx: Context{ServeConfigError: "serveConfigV2: not YAML"},
			entries: 1, unchecked: map[Kind]string{ModuleMissing: "serveConfigV2: not YAML", ImportMissing: ""}},
		{name: "PYTHONPATH from the cluster", argv: []string{"python", "/app/main.py"}, ctx: Context{EnvFromCluster: []string{"PYTHONPATH"}},
			entries: 1, unchecked: map[Kind]string{ImportMissing: "PYTHONPATH comes from a ConfigMap"}},
		{name: "another variable from the cluster", argv: []string{"python", "/app/main.py"}, ctx: Context{EnvFromCluster: []string{"MODEL_ID"}},
			want: []string{"import mylib@/app/main.py:1"}, entries: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.ctx.Spec = launch.Spec{Argv: c.argv, WorkingDir: "/app"}
			_, analysis := openImageFor(t, rayFiles, c.ctx)
			var got []string
			for i, line := range summary(analysis) {
				if app := analysis.Problems[i].ServeApp; app != "" {
					line += " (app " + app + ")"
				}
				got = append(got, line)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("problems %q, want %q (unchecked: %v)", got, c.want, analysis.Unchecked)
			}
			if analysis.Entries != c.entries {
				t.Errorf("%d entries, want %d", analysis.Entries, c.entries)
			}
			for kind, want := range c.unchecked {
				reasons := strings.Join(analysis.UncheckedFor(kind), "; ")
				if want == "" && reasons != "" || !strings.Contains(reasons, want) {
					t.Errorf("unchecked for kind %d: %q, want %q", kind, reasons, want)
				}
			}
		})
	}
}
