package imagetest

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseDockerfile(t *testing.T) {
	spec, err := ParseDockerfile(`# docker build --platform linux/arm64 -t registry.example.com/app:1.0 .
FROM scratch
COPY --chmod=0700 --chown=1000 server /opt/app/serve
COPY <<EOF /entrypoint.sh
#!/bin/sh
exec /opt/app/serve "$@"
EOF
RUN ln -s /opt/app/serve /usr/bin/serve
RUN chmod 0755 /entrypoint.sh
ENV A=1 B=2
USER 1000:1000
WORKDIR /srv
ENTRYPOINT /entrypoint.sh --port 8080
CMD ["--verbose"]`)
	if err != nil {
		t.Fatal(err)
	}
	if spec.Ref != "registry.example.com/app:1.0" || len(spec.Platforms) != 0 {
		t.Errorf("ref %q, platforms %v", spec.Ref, spec.Platforms)
	}
	want := ConfigSpec{Architecture: "arm64", Entrypoint: []string{"/bin/sh", "-c", "/entrypoint.sh --port 8080"},
		Cmd: []string{"--verbose"}, Env: []string{"A=1", "B=2"}, User: "1000:1000", WorkingDir: "/srv"}
	if !reflect.DeepEqual(spec.Config, want) {
		t.Errorf("config %+v, want %+v", spec.Config, want)
	}
	var got []string
	for _, file := range spec.Layers[0].Files {
		entry := file.Path + " " + file.Mode
		switch {
		case file.Dir:
			entry += " dir"
		case file.ELF != "":
			entry += " elf " + file.ELF
		case file.Symlink != "":
			entry += " -> " + file.Symlink
		default:
			entry += " " + strings.TrimSpace(file.Content)
		}
		if file.UID != 0 {
			entry += " uid 1000"
		}
		got = append(got, entry)
	}
	wantFiles := []string{
		"/opt  dir", "/opt/app  dir", "/opt/app/serve 0700 elf stub-arm64 uid 1000",
		"/entrypoint.sh 0755 #!/bin/sh\nexec /opt/app/serve \"$@\"",
		"/usr  dir", "/usr/bin  dir", "/usr/bin/serve  -> /opt/app/serve", "/srv  dir",
	}
	if !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("files:\n%q\nwant:\n%q", got, wantFiles)
	}
	if _, err := Build(spec, nil); err != nil {
		t.Errorf("build: %v", err)
	}
}

func TestParseDockerfileRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"no build line":    "FROM scratch",
		"base image":       "# docker build -t r/a:1 .\nFROM debian:12",
		"unknown source":   "# docker build -t r/a:1 .\nFROM scratch\nCOPY app.py /app.py",
		"RUN":              "# docker build -t r/a:1 .\nFROM scratch\nRUN pip install torch",
		"unended heredoc":  "# docker build -t r/a:1 .\nFROM scratch\nCOPY <<EOF /a\nx",
		"two platforms":    "# docker build --platform linux/amd64,linux/arm64 -t r/a:1 .\nFROM scratch",
		"before FROM":      "# docker build -t r/a:1 .\nUSER 1000",
		"relative target":  "# docker build -t r/a:1 .\nFROM scratch\nCOPY server app",
		"chmod of nothing": "# docker build -t r/a:1 .\nFROM scratch\nRUN chmod 0755 /a",
	} {
		if _, err := ParseDockerfile(text); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
