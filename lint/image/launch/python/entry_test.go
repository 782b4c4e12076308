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
		"env -C /srv python3 app.py":                                   "",
		"tini -- python -S app.py":                                     "python script(4)=app.py",
		"env A=1 B=2 python app.py":                                    "python script(4)=app.py",
		"python -- app.py":                                             "python script(2)=app.py",
		"python --":                                                    "",
		"python --help app.py":                                         "",
		"python --version app.py":                                      "",
		"python --help-all app.py":                                     "",
		"python -Werror app.py":                                        "python script(2)=app.py",
		"python -uW error app.py":                                      "python script(3)=app.py",
		"celery -A proj --broker=redis://r:6379/0 worker":              "celery app(2)=proj",
		"celery --workdir=/srv -A proj worker":                         "celery app(3)=proj dir=/srv",
		"celery -A=proj worker":                                        "celery app(1)==proj",
		"uvicorn main:app -h":                                          "",
		"gunicorn wsgi:app -v":                                         "",
		"uvicorn --port 80 -- main:app":                                "uvicorn app(4)=main:app",
		"gunicorn --pythonpath /srv/lib,/srv/vendor wsgi:app":          "gunicorn app(3)=wsgi:app path=/srv/lib,/srv/vendor",
		"gunicorn -c conf.py wsgi:app":                                 "gunicorn app(3)=wsgi:app unsure",
		"gunicorn --config=conf.py wsgi:app":                           "gunicorn app(2)=wsgi:app unsure",
		"hypercorn --bind 0.0.0.0:80 app.main:app":                     "hypercorn app(3)=app.main:app",
		"hypercorn --bind 0.0.0.0:80":                                  "",
		"fastapi dev main.py":                                          "fastapi file(2)=main.py",
		"serve run app.graph":                                          "serve app(2)=app:graph",
		"serve run graph":                                              "",
		"node -- app.js":                                               "node file(2)=app.js",
		"node --":                                                      "",
		"java -cp lib.jar -jar /app.jar":                               "java file(4)=/app.jar",
		"java -m com.app/com.app.Main -jar /app.jar":                   "",
		"java --module com.app/com.app.Main -jar /app.jar":             "",
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
				if target.ExtraPath != nil {
					part += " path=" + strings.Join(target.ExtraPath, ",")
				}
				if target.Unsure != "" {
					part += " unsure"
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

// TestParseEntryFlags: CPython's single-letter options combine (-sE), and
// a -W or -X inside a group takes the rest of the word, or the next word
// when it ends the group, as its value.
func TestParseEntryFlags(t *testing.T) {
	cases := map[string]Flags{
		"python -sE app.py":           {NoUserSite: true, IgnoreEnvironment: true},
		"python -Es app.py":           {NoUserSite: true, IgnoreEnvironment: true},
		"python -uSP app.py":          {NoSite: true, SafePath: true},
		"python -I app.py":            {IgnoreEnvironment: true, NoUserSite: true, SafePath: true},
		"python -WEs app.py":          {},
		"python -Xdev -s app.py":      {NoUserSite: true},
		"python -sW ignore -E app.py": {NoUserSite: true, IgnoreEnvironment: true},
	}
	for line, want := range cases {
		entry, ok := ParseEntry(strings.Fields(line))
		if !ok || len(entry.Targets) != 1 || entry.Targets[0].Name != "app.py" {
			t.Errorf("%s: %+v, %v; want script app.py", line, entry, ok)
			continue
		}
		if entry.Flags != want {
			t.Errorf("%s: flags %+v, want %+v", line, entry.Flags, want)
		}
	}
}
