package imagetest

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"strings"
)

// stubMachines are the architectures a "stub-ARCH" ELF can be built for
// without a compiler.
var stubMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390}

// isStub reports whether an ELF kind is written in Go rather than by gcc.
func isStub(kind string) bool { return strings.HasPrefix(kind, "stub-") }

// StubELF writes a minimal static ELF executable for an architecture: an
// ELF header and one PT_LOAD segment, no loader, no libraries. Its bytes
// are the same on every machine, so scenarios that only need "a static
// binary" do not depend on the host's toolchain.
func StubELF(kind string) ([]byte, error) {
	arch := strings.TrimPrefix(kind, "stub-")
	machine, ok := stubMachines[arch]
	if !ok {
		return nil, fmt.Errorf("ELF kind %q: no stub for %s", kind, arch)
	}
	const headerSize, programHeaderSize, codeSize = 64, 56, 8
	size := headerSize + programHeaderSize + codeSize
	var order binary.ByteOrder = binary.LittleEndian
	data := elf.ELFDATA2LSB
	if machine == elf.EM_S390 {
		order, data = binary.BigEndian, elf.ELFDATA2MSB
	}
	out := make([]byte, size)
	copy(out, elf.ELFMAG)
	out[elf.EI_CLASS], out[elf.EI_DATA], out[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(data), byte(elf.EV_CURRENT)
	order.PutUint16(out[16:], uint16(elf.ET_EXEC))
	order.PutUint16(out[18:], uint16(machine))
	order.PutUint32(out[20:], uint32(elf.EV_CURRENT))
	order.PutUint64(out[24:], 0x400000+headerSize+programHeaderSize) // entry
	order.PutUint64(out[32:], headerSize)                            // program headers
	order.PutUint16(out[52:], headerSize)
	order.PutUint16(out[54:], programHeaderSize)
	order.PutUint16(out[56:], 1)
	ph := out[headerSize:]
	order.PutUint32(ph[0:], uint32(elf.PT_LOAD))
	order.PutUint32(ph[4:], uint32(elf.PF_R|elf.PF_X))
	order.PutUint64(ph[16:], 0x400000)
	order.PutUint64(ph[24:], 0x400000)
	order.PutUint64(ph[32:], uint64(size))
	order.PutUint64(ph[40:], uint64(size))
	order.PutUint64(ph[48:], 0x1000)
	return out, nil
}
