package tfdtype

import "testing"

func TestNames(t *testing.T) {
	names := Names()
	for name, number := range map[string]int32{"DT_FLOAT": 1, "DT_HALF": 19, "DT_FLOAT_REF": 101, "DT_UINT2": 32, "DT_INVALID": 0} {
		if names[name] != number {
			t.Errorf("Names()[%s] = %d, want %d", name, names[name], number)
		}
		if got := Name(uint64(number)); got != name {
			t.Errorf("Name(%d) = %s, want %s", number, got, name)
		}
	}
	if _, ok := names["DT_INVALID_REF"]; ok {
		t.Error("DT_INVALID has no reference variant")
	}
	if got := Name(99); got != "DataType(99)" {
		t.Errorf("Name(99) = %s", got)
	}
}

func TestBits(t *testing.T) {
	for number, bits := range map[uint64]int{1: 32, 101: 32, 14: 16, 29: 4, 31: 2, 18: 128, 7: 0, 20: 0, 99: 0} {
		if got := Bits(number); got != bits {
			t.Errorf("Bits(%s) = %d, want %d", Name(number), got, bits)
		}
	}
}
