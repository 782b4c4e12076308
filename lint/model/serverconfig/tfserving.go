package serverconfig

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/modellint/modellint/lint/model/textproto"
	"github.com/modellint/modellint/lint/model/wire"
)

// Entry is a model a server config file lists.
type Entry struct {
	Name     string
	BasePath string
	// Line is the 1-based line of the entry's base_path (of its name, or
	// of the entry, when base_path is not written); 0 when not found.
	Line int
}

// maxEntries bounds the models of one config file.
const maxEntries = 10_000

// tfServingSchema declares the fields of tensorflow.serving.ModelServerConfig
// (tensorflow_serving/config/model_server_config.proto) that are read.
var tfServingSchema = sync.OnceValue(func() *textproto.Schema {
	return textproto.MustSchema("tensorflow.serving", nil, []textproto.Message{
		{Name: "ModelServerConfig", Fields: []textproto.Field{
			textproto.MessageField("model_config_list", 1, "ModelConfigList"),
			textproto.MessageField("custom_model_config", 2, "Opaque"),
		}},
		{Name: "ModelConfigList", Fields: []textproto.Field{
			textproto.Repeated(textproto.MessageField("config", 1, "ModelConfig")),
		}},
		{Name: "ModelConfig", Fields: []textproto.Field{
			textproto.String("name", 1),
			textproto.String("base_path", 2),
			textproto.String("model_platform", 4),
		}},
		{Name: "Opaque"},
	})
})

// TFServingConfig is what a TF Serving model config file says.
type TFServingConfig struct {
	Entries []Entry
	// Custom says the file holds a custom_model_config, whose models the
	// server's own source plugin reads.
	Custom bool
}

// TFServing parses a TF Serving model config file (a ModelServerConfig in
// protobuf text format), as the server does at start: a syntax error or a
// field of the wrong type stops it.
func TFServing(text []byte) (*TFServingConfig, error) {
	if len(text) > MaxFile {
		return nil, fmt.Errorf("%d bytes, more than the %d a model config file may have", len(text), MaxFile)
	}
	encoded, err := tfServingSchema().ToWire(text, "ModelServerConfig")
	if err != nil {
		return nil, err
	}
	config := &TFServingConfig{}
	root := wire.NewReader(bytes.NewReader(encoded), int64(len(encoded))).Root()
	err = root.Range(func(f wire.Field) error {
		if f.Number == 2 {
			config.Custom = true
			return nil
		}
		if f.Number != 1 {
			return nil
		}
		return f.Message().Range(func(item wire.Field) error {
			if item.Number != 1 {
				return nil
			}
			if len(config.Entries) == maxEntries {
				return fmt.Errorf("more than %d models", maxEntries)
			}
			var entry Entry
			err := item.Message().Range(func(field wire.Field) error {
				var err error
				switch field.Number {
				case 1:
					entry.Name, err = field.String(MaxFile)
				case 2:
					entry.BasePath, err = field.String(MaxFile)
				}
				return err
			})
			config.Entries = append(config.Entries, entry)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	placeEntries(text, config.Entries)
	return config, nil
}

// placeEntries gives each entry the line of its base_path: the parser
// keeps no positions, so the fields are found in the text, in order.
func placeEntries(text []byte, entries []Entry) {
	configs := textproto.FieldLines(text, "config")
	paths := textproto.FieldLines(text, "base_path")
	for i := range entries {
		switch {
		case len(paths) == len(entries):
			entries[i].Line = paths[i]
		case len(configs) == len(entries):
			entries[i].Line = configs[i]
		}
	}
}
