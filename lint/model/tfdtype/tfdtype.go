// Package tfdtype names TensorFlow's DataType enum values
// (tensorflow/core/framework/types.proto) and gives their element sizes.
package tfdtype

import "fmt"

var names = map[uint64]string{
	0: "DT_INVALID", 1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8", 5: "DT_INT16",
	6: "DT_INT8", 7: "DT_STRING", 8: "DT_COMPLEX64", 9: "DT_INT64", 10: "DT_BOOL", 11: "DT_QINT8",
	12: "DT_QUINT8", 13: "DT_QINT32", 14: "DT_BFLOAT16", 15: "DT_QINT16", 16: "DT_QUINT16",
	17: "DT_UINT16", 18: "DT_COMPLEX128", 19: "DT_HALF", 20: "DT_RESOURCE", 21: "DT_VARIANT",
	22: "DT_UINT32", 23: "DT_UINT64", 24: "DT_FLOAT8_E5M2", 25: "DT_FLOAT8_E4M3FN",
	26: "DT_FLOAT8_E4M3FNUZ", 27: "DT_FLOAT8_E4M3B11FNUZ", 28: "DT_FLOAT8_E5M2FNUZ", 29: "DT_INT4",
	30: "DT_UINT4", 31: "DT_INT2", 32: "DT_UINT2",
}

// refOffset is added to a type for its reference variant (DT_FLOAT_REF = 101).
const refOffset = 100

// Names maps every value name, including the _REF variants, to its number:
// the enum as a text-format parser needs it.
func Names() map[string]int32 {
	all := map[string]int32{}
	for number, name := range names {
		all[name] = int32(number)
		if number != 0 {
			all[name+"_REF"] = int32(number + refOffset)
		}
	}
	return all
}

// Name is the enum value name of a DataType number.
func Name(number uint64) string {
	if name, ok := names[number]; ok {
		return name
	}
	if name, ok := names[number-refOffset]; ok && number > refOffset {
		return name + "_REF"
	}
	return fmt.Sprintf("DataType(%d)", number)
}

// Bits is the size of one element in bits, 0 for types without a fixed size
// (strings, resources, variants) and unknown types.
func Bits(number uint64) int {
	if number > refOffset {
		number -= refOffset
	}
	switch number {
	case 31, 32:
		return 2
	case 29, 30:
		return 4
	case 4, 6, 10, 11, 12, 24, 25, 26, 27, 28:
		return 8
	case 5, 14, 15, 16, 17, 19:
		return 16
	case 1, 3, 13, 22:
		return 32
	case 2, 8, 9, 23:
		return 64
	case 18:
		return 128
	}
	return 0
}
