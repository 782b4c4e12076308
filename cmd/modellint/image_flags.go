package main

import (
	"github.com/spf13/pflag"

	"github.com/modellint/modellint/lint"
)

// addImageFlags defines the flags that say where images come from.
func addImageFlags(set *pflag.FlagSet, options *lint.ImageOptions) {}
