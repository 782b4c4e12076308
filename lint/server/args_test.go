package server

import "testing"

func TestSwitch(t *testing.T) {
	on, off := []string{"--mmap"}, []string{"--no-mmap"}
	tests := []struct {
		argv            []string
		enabled, wantOK bool
	}{
		{[]string{"llama-server", "-m", "m.gguf"}, false, false},
		{[]string{"llama-server", "--no-mmap"}, false, true},
		{[]string{"llama-server", "--no-mmap", "-c", "4096", "--mmap"}, true, true},
		{[]string{"llama-server", "--mmap", "--no-mmap"}, false, true},
		// A flag's value is no switch of its own.
		{[]string{"llama-server", "--alias", "--no-mmapped"}, false, false},
	}
	for _, test := range tests {
		value, enabled, ok := ArgsOf(test.argv, nil).Switch(on, off)
		if enabled != test.enabled || ok != test.wantOK || (ok && value.From == "") {
			t.Errorf("%v: Switch = %+v, %v, %v; want %v, %v", test.argv, value, enabled, ok, test.enabled, test.wantOK)
		}
	}
}
