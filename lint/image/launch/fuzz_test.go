package launch

import "testing"

func FuzzParseShebang(f *testing.F) {
	for _, seed := range []string{"#!/bin/sh\n", "#!/usr/bin/env -S python3 -u\r\n", "#!  /bin/bash -e", "#!", "\x7fELF"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		shebang, ok := ParseShebang(head)
		if !ok && shebang.Interpreter != "" {
			t.Fatal("interpreter without #!")
		}
		envProgram(shebang.Argument)
	})
}

func FuzzParsePasswd(f *testing.F) {
	f.Add([]byte("root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n"), []byte("root:x:0:\napp:x:1000:app,other\n"))
	f.Add([]byte("::::\n#comment\nx:x:99999999999:1"), []byte(":::\n"))
	f.Fuzz(func(t *testing.T, passwd, group []byte) {
		ParsePasswd(passwd)
		ParseGroup(group)
	})
}
