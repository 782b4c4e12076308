// Package serverconfig reads the files in which model servers list the
// models they load besides their flags: TF Serving's model config file
// (--model_config_file) and TorchServe's config.properties (--ts-config).
// Each entry keeps its line, so that findings point at it.
package serverconfig

// MaxFile bounds a config file read whole; real ones are a few KiB.
const MaxFile = 1 << 20
