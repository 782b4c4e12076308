// Package shell follows a container's wrapper script or `sh -c` string, statically
// with a real shell parser, to the program it finally runs and that program's argv,
// so the launch checks can look for that program in the image.
package shell
