package python

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseEntry(t *testing.T) {
	cases := map[string]string{
		"python3 /app/main.py --port 8":                     "python3 script(1)=/app/main.py",
		"python -u -W ignore -X dev serve.py":               "python script(6)=serve.py",
		"python -m vllm.entrypoints.openai.api_server":      "python module(2)=vllm.entrypoints.openai.api_server",
		"python3.11 -mhttp.server":                          "python3.11 module(1)=http.server",
		"python -c print(1)":                                "",
		"python --version":                                  "",
		"/usr/bin/env python3 app.py":                       "python3 script(2)=app.py",
		"tini -- python -I x.py":                            "python script(4)=x.py",
		"python -m uvicorn app.main:app --port 80":          "python module(2)=uvicorn app(3)=app.main:app",
		"uvicorn --host 0.0.0.0 main:app --reload":          "uvicorn app(3)=main:app",
		"uvicorn --app-dir=/srv main:api":                   "uvicorn app(2)=main:api dir=/srv",
		"gunicorn -w4 -k uvicorn.workers.UvicornWorker a:b": "gunicorn module(3)=uvicorn.workers app(4)=a:b",
		"gunicorn --chdir /code wsgi":                       "gunicorn app(3)=wsgi dir=/code",
		"gunicorn wsgi:app -h":                              "",
		"hypercorn src/app.py:app":                          "",
		"fastapi run app/main.py --port 80":                 "fastapi file(2)=app/main.py",
		"fastapi run":                                       "",
		"serve run config.yaml":                             "serve file(2)=config.yaml",
		"serve run app.deploy:graph --app-dir /srv":         "serve app(2)=app.deploy:graph dir=/srv",
		"serve run --working-dir s3://b/x app:graph":        "",
		"torchserve --start --model-store /m --models a=a.mar b.mar http://x/y.mar all": "torchserve file(5)=a.mar file(6)=b.mar",
		"node --require ts-node/register dist/index.js":                                 "node file(3)=dist/index.js",
		"node -e 1":                                                    "",
		"java -Xmx1g -jar /app.jar":                                    "java file(3)=/app.jar",
		"java -cp x.jar com.example.Main":                              "",
		"sleep infinity":                                               "",
		"celery -A proj worker -l INFO":                                "celery app(2)=proj",
		"celery --app=proj.tasks:app --workdir /srv beat":              "celery app(1)=proj.tasks:app dir=/srv",
		"celery -b redis://r:6379/0 --app proj.celery worker -A other": "celery app(4)=proj.celery",
		"python -m celery -Aproj worker":                               "python module(2)=celery app(3)=proj",
		"celery worker -l INFO":                                        "",
		"celery --help":                                                "",
		"celery -A=proj worker":                                        "celery app(1)==proj",
	}
	for line, want := range cases {
		entry, ok := ParseEntry(strings.Fields(line))
		got := ""
		if ok {
			parts := []string{entry.Tool}
			for _, target := range entry.Targets {
				kind := map[TargetKind]string{Script: "script", Module: "module", App: "app", File: "file"}[target.Kind]
				name := target.Name
				if target.Attr != "" {
					name += ":" + target.Attr
				}
				part := fmt.Sprintf("%s(%d)=%s", kind, target.Word, name)
				if target.Kind == App && target.AppDir != "." {
					part += " dir=" + target.AppDir
				}
				parts = append(parts, part)
			}
			got = strings.Join(parts, " ")
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", line, got, want)
		}
	}
}

func FuzzParseEntry(f *testing.F) {
	for _, seed := range []string{"python -m x", "uvicorn a:b --app-dir d", "gunicorn -k a.B x:y", "torchserve --model-store s --models a=b.mar", "env A=1 tini -- node x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Fields(line)
		entry, ok := ParseEntry(argv)
		if !ok {
			return
		}
		for _, target := range entry.Targets {
			if target.Word < 0 || target.Word >= len(argv) {
				t.Fatalf("%q: target word %d outside argv", line, target.Word)
			}
		}
	})
}

// Ray's CLI names no file of the app: the ray package is what it needs.
func TestParseEntryRay(t *testing.T) {
	for _, line := range []string{"ray start --head --block", "/home/ray/anaconda3/bin/ray job submit -- python x.py"} {
		entry, ok := ParseEntry(strings.Fields(line))
		if !ok || !entry.Python || entry.Tool != "ray" || len(entry.Targets) != 1 ||
			entry.Targets[0].Kind != Module || entry.Targets[0].Name != "ray" || entry.Targets[0].Word != -1 {
			t.Errorf("ParseEntry(%q) = %+v, %v; want ray needing module ray", line, entry, ok)
		}
	}
}
