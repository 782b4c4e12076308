// Package elfinfo reads what the dynamic loader needs from an ELF file —
// machine, PT_INTERP, DT_NEEDED, run paths, GLIBC version needs and
// definitions — through the program headers, from the parts of the file
// that were captured, so a 400 MB server binary is never held whole.
package elfinfo
