package savedmodel

import (
	"bytes"
	"sync"

	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/textproto"
	"github.com/modellint/modellint/lint/model/tfdtype"
)

// textSchema declares the part of tensorflow/core/protobuf/saved_model.proto
// (and the messages it uses) that Read decodes, with TensorFlow's field names
// and numbers, so that saved_model.pbtxt is checked by a real text-format
// parser and then decoded like a .pb.
// Built when first used: at package init every run paid for it.
var textSchema = sync.OnceValue(func() *textproto.Schema {
	return textproto.MustSchema("tensorflow",
		[]textproto.Enum{{Name: "DataType", Values: tfdtype.Names()}},
		[]textproto.Message{
			{Name: "SavedModel", Fields: []textproto.Field{
				textproto.Int64("saved_model_schema_version", 1),
				textproto.Repeated(textproto.MessageField("meta_graphs", 2, "MetaGraphDef")),
			}},
			{Name: "MetaGraphDef", Fields: []textproto.Field{
				textproto.MessageField("meta_info_def", 1, "MetaInfoDef"),
				textproto.MessageField("graph_def", 2, "GraphDef"),
				textproto.Repeated(textproto.MessageField("collection_def", 4, "CollectionDefEntry")),
				textproto.Repeated(textproto.MessageField("signature_def", 5, "SignatureDefEntry")),
				textproto.Repeated(textproto.MessageField("asset_file_def", 6, "AssetFileDef")),
				textproto.MessageField("object_graph_def", 7, "Opaque"),
			}},
			{Name: "Opaque"},
			{Name: "MetaInfoDef", Fields: []textproto.Field{
				textproto.String("meta_graph_version", 1),
				textproto.MessageField("stripped_op_list", 2, "OpList"),
				textproto.Repeated(textproto.String("tags", 4)),
				textproto.String("tensorflow_version", 5),
				textproto.String("tensorflow_git_version", 6),
			}},
			{Name: "OpList", Fields: []textproto.Field{textproto.Repeated(textproto.MessageField("op", 1, "OpDef"))}},
			{Name: "OpDef", Fields: []textproto.Field{textproto.String("name", 1)}},
			{Name: "GraphDef", Fields: []textproto.Field{
				textproto.Repeated(textproto.MessageField("node", 1, "NodeDef")),
				textproto.MessageField("library", 2, "FunctionDefLibrary"),
			}},
			{Name: "NodeDef", Fields: []textproto.Field{
				textproto.String("name", 1),
				textproto.String("op", 2),
				textproto.Repeated(textproto.MessageField("attr", 5, "AttrEntry")),
			}},
			{Name: "AttrEntry", Fields: []textproto.Field{
				textproto.String("key", 1),
				textproto.MessageField("value", 2, "AttrValue"),
			}},
			{Name: "AttrValue", Fields: []textproto.Field{textproto.Bytes("s", 2)}},
			{Name: "FunctionDefLibrary", Fields: []textproto.Field{
				textproto.Repeated(textproto.MessageField("function", 1, "FunctionDef")),
			}},
			{Name: "FunctionDef", Fields: []textproto.Field{
				textproto.MessageField("signature", 1, "OpDef"),
				textproto.Repeated(textproto.MessageField("node_def", 3, "NodeDef")),
			}},
			{Name: "CollectionDefEntry", Fields: []textproto.Field{
				textproto.String("key", 1),
				textproto.MessageField("value", 2, "CollectionDef"),
			}},
			{Name: "CollectionDef", Fields: []textproto.Field{textproto.MessageField("any_list", 5, "AnyList")}},
			{Name: "AnyList", Fields: []textproto.Field{textproto.Repeated(textproto.MessageField("value", 1, "AssetAny"))}},
			// In text format an Any is written expanded ([type.googleapis.com/...] {...}),
			// which the parser skips; assets of TF1 text exports are therefore not
			// listed, and a missing asset is only found in .pb exports.
			{Name: "AssetAny", Fields: []textproto.Field{
				textproto.String("type_url", 1),
				textproto.MessageField("value", 2, "AssetFileDef"),
			}},
			{Name: "AssetFileDef", Fields: []textproto.Field{
				textproto.MessageField("tensor_info", 1, "TensorInfo"),
				textproto.String("filename", 2),
			}},
			{Name: "SignatureDefEntry", Fields: []textproto.Field{
				textproto.String("key", 1),
				textproto.MessageField("value", 2, "SignatureDef"),
			}},
			{Name: "SignatureDef", Fields: []textproto.Field{
				textproto.Repeated(textproto.MessageField("inputs", 1, "TensorInfoEntry")),
				textproto.Repeated(textproto.MessageField("outputs", 2, "TensorInfoEntry")),
				textproto.String("method_name", 3),
			}},
			{Name: "TensorInfoEntry", Fields: []textproto.Field{
				textproto.String("key", 1),
				textproto.MessageField("value", 2, "TensorInfo"),
			}},
			{Name: "TensorInfo", Fields: []textproto.Field{
				textproto.String("name", 1),
				textproto.EnumField("dtype", 2, "DataType"),
				textproto.MessageField("tensor_shape", 3, "TensorShapeProto"),
			}},
			{Name: "TensorShapeProto", Fields: []textproto.Field{
				textproto.Repeated(textproto.MessageField("dim", 2, "Dim")),
				textproto.Bool("unknown_rank", 3),
			}},
			{Name: "Dim", Fields: []textproto.Field{
				textproto.Int64("size", 1),
				textproto.String("name", 2),
			}},
		})
})

// TextSchema is the schema ReadText parses saved_model.pbtxt with: tests
// write a saved_model.pb from text with it.
func TextSchema() *textproto.Schema { return textSchema() }

// ReadText decodes a saved_model.pbtxt.
func ReadText(text []byte) (*SavedModel, error) {
	encoded, err := textSchema().ToWire(text, "SavedModel")
	if err != nil {
		return nil, modelfile.Invalidf(FormatName, "%w", err)
	}
	return Read(bytes.NewReader(encoded), int64(len(encoded)))
}
