// Package rootfs is the merged view of an image's layers: every path with its
// type, mode, owner and link target, built from tar headers alone with
// containerd's rules for whiteouts, opaque directories and symlinked parents.
package rootfs
