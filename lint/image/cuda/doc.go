// Package cuda reads which CUDA toolkit an image was built for (env,
// labels, version.json) and which NVIDIA driver that toolkit needs, from
// NVIDIA's published compatibility tables.
package cuda
