package rules

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
)

// tfsConfigMount and tfsModelConfig make MDL412's examples: TF Serving
// reading its model list from a ConfigMap.
const (
	tfsConfigMount = "args: [--model_config_file=/config/models.config]\nvolumeMounts:\n" +
		"  - {name: models, mountPath: /models/resnet}\n  - {name: config, mountPath: /config}\nvolumes:\n" +
		"  - {name: models, persistentVolumeClaim: {claimName: resnet-models}}\n  - {name: config, configMap: {name: tfs-config}}\n"
	tfsModelConfig = "    model_config_list {\n" +
		"      config { name: \"resnet\" base_path: \"/models/resnet\" model_platform: \"tensorflow\" }\n    }"
)

var serverConfigInvalid = &lint.Rule{
	ID: "MDL412", Name: "server-config-invalid", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "The config file a server reads its models from is missing, does not parse, or names what the server cannot load.",
		Why: "TF Serving started with --model_config_file reads its models from that file alone (its --model_name and " +
			"--model_base_path are then ignored): a file that is not in the container or is not a ModelServerConfig in " +
			"protobuf text format stops the server at start; a file that lists no model starts a server that serves " +
			"nothing (a warning). OpenVINO Model Server started with --config_path refuses a config.json its schema " +
			"refuses (model_config_list not an array, an entry without config.name) and does not start; a relative " +
			"base_path is the config file's dir's. TorchServe reads config.properties (TS_CONFIG_FILE, else --ts-config, else the image's " +
			"/home/model-server/config.properties) and skips one that is not there, starting with its defaults (a warning). " +
			"Its service_envelope names a module of ts.torch_handler.request_envelope (body, json, kserve, kservev2) that " +
			"each model's worker imports: KServe v1's `kfserving` was renamed `kserve` in TorchServe 0.6, and an envelope " +
			"that does not exist fails every model's load with \"No module named 'ts.torch_handler.request_envelope.…'\". " +
			"A load_models entry whose .mar is not in the model store is logged and skipped: the server runs without that " +
			"model (a warning).\n\n" +
			"The file is read where the pod gives it to the container: a ConfigMap's key on a configMap volume, a file of " +
			"the model dir linked to the volume, or the image's file when no volume covers the path. Each model the file " +
			"lists is linked and checked like a model path given by a flag (MDL403), at the file's line.",
		Bad: tfsConfigMount + "---\n# the key is model.config, not models.config\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tfs-config}\ndata:\n  model.config: |\n" + tfsModelConfig,
		Good: tfsConfigMount + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: tfs-config}\ndata:\n  models.config: |\n" +
			tfsModelConfig,
		Fix: "Mount the config file where the flag points (the ConfigMap key, with items or subPath), fix its syntax, use an " +
			"envelope the image's TorchServe has (kserve, kservev2), and put each load_models .mar in the model store.",
		References: []string{
			"https://www.tensorflow.org/tfx/serving/serving_config",
			"https://github.com/tensorflow/serving/blob/master/tensorflow_serving/config/model_server_config.proto",
			"https://github.com/pytorch/serve/blob/master/frontend/server/src/main/java/org/pytorch/serve/util/ConfigManager.java",
			"https://github.com/pytorch/serve/blob/master/ts/model_loader.py",
			"https://github.com/kserve/kserve/issues/2441",
			"https://docs.openvino.ai/2025/model-server/ovms_docs_serving_model.html",
		},
	},
	Check: checkServerConfig,
}

// torchServeEnvelopes are the modules of ts.torch_handler.request_envelope.
var torchServeEnvelopes = []string{"base", "body", "json", "kserve", "kservev2"}

func checkServerConfig(pass *lint.Pass) {
	if len(pass.Target.ServerFiles) == 0 {
		pass.Skip("no serving container reads a model config file that is in the linted files")
		return
	}
	for _, file := range pass.Target.ServerFiles {
		c := file.Container
		where := fmt.Sprintf("%s reads %s (%s, %s)", describe(c), file.Setting.Value, file.Setting.From, file.From)
		torchServe := c.Runtime.Name == "torchserve"
		switch {
		case file.Err != nil && torchServe:
			reportInFile(pass, file, 0, lint.Warning, "%s: %v; TorchServe skips a config file it cannot find and starts with "+
				"its defaults (model store, addresses, envelope), not the ones the file was meant to set: mount it there", where, file.Err)
		case file.Err != nil && file.FromTree:
			reportInFile(pass, file, 0, lint.Warning, "%s: %v; if the volume, like the tree, does not hold it, %s stops "+
				"at start: add the file to the model dir, or point the flag at the file the volume holds", where, file.Err, c.Runtime.Title)
		case file.Err != nil:
			reportInFile(pass, file, 0, lint.Error, "%s: %v: %s stops at start; mount the file there (a ConfigMap key, "+
				"with items or subPath) and keep it a ModelServerConfig in protobuf text format", where, file.Err, c.Runtime.Title)
		case len(file.Refusals) > 0:
			for _, refusal := range file.Refusals {
				reportInFile(pass, file, refusal.Line, lint.Error, "%s: %s: %s refuses the file (\"Configuration file "+
					"is not in valid configuration format\") and does not start", where, refusal.Reason, c.Runtime.Title)
			}
		case !torchServe && file.Models == 0:
			reportInFile(pass, file, 0, lint.Warning, "%s: the file lists no model (model_config_list is empty or "+
				"absent), so the server starts and serves nothing; list each model with its name and base_path", where)
		case torchServe:
			checkTorchServeConfig(pass, file, where)
		}
	}
}

func checkTorchServeConfig(pass *lint.Pass, file *lint.ServerFile, where string) {
	envelope, ok := file.Properties.Get("service_envelope")
	if enabled, _ := file.Properties.Get("enable_envvars_config"); strings.EqualFold(strings.TrimSpace(enabled.Value), "true") &&
		slices.ContainsFunc(file.Container.Env, func(env corev1.EnvVar) bool { return env.Name == "TS_SERVICE_ENVELOPE" }) {
		ok = false // TS_SERVICE_ENVELOPE wins (KServe's runtime sets it from the protocol)
	}
	if ok && !slices.Contains(torchServeEnvelopes, envelope.Value) {
		version, known := torchServeVersion(file.Container.Image)
		switch {
		case envelope.Value != "kfserving":
			reportInFile(pass, file, envelope.Line, lint.Error, "%s: service_envelope=%s names no envelope TorchServe has "+
				"(%s): every model's worker fails to import ts.torch_handler.request_envelope.%s and no model loads; use "+
				"kserve or kservev2", where, message.Quote(envelope.Value), strings.Join(torchServeEnvelopes[1:], ", "), envelope.Value)
		case known && !versionBefore(version, [2]int{0, 6}):
			reportInFile(pass, file, envelope.Line, lint.Error, "%s: service_envelope=kfserving, which TorchServe %d.%d "+
				"(the image's tag) no longer has (renamed kserve in 0.6): every model fails to load with \"No module "+
				"named 'ts.torch_handler.request_envelope.kfserving'\"; use service_envelope=kserve, or "+
				"enable_envvars_config=true and let KServe set TS_SERVICE_ENVELOPE", where, version[0], version[1])
		case !known:
			reportInFile(pass, file, envelope.Line, lint.Warning, "%s: service_envelope=kfserving exists only in TorchServe "+
				"before 0.6 (the image's tag does not say its version): on a newer one every model fails to load with "+
				"\"No module named 'ts.torch_handler.request_envelope.kfserving'\"; use service_envelope=kserve", where)
		}
	}
	loads, ok := file.Properties.Get("load_models")
	if !ok {
		return
	}
	store, inside := torchServeStore(pass, file)
	if store == nil {
		return
	}
	for _, entry := range strings.Split(loads.Value, ",") {
		archive := strings.TrimSpace(entry)
		if _, after, found := strings.Cut(archive, "="); found {
			archive = strings.TrimSpace(after)
		}
		if archive == "" || archive == "all" || strings.Contains(archive, "://") || path.IsAbs(archive) {
			continue
		}
		held := path.Join(inside, archive)
		if !slices.ContainsFunc(store.Model.Files, func(f model.File) bool { return f.Path == held || path.Dir(f.Path) == held }) {
			reportInFile(pass, file, loads.Line, lint.Warning, "%s: load_models names %s, which the model store does not "+
				"hold (%s in model dir %s, at %s by %s): TorchServe logs \"Failed to load model\" and runs without it; add "+
				"the .mar to the store or drop it from load_models", where, message.Quote(archive), held, store.Model.Dir,
				store.ServerPath.Value, store.ServerPath.From)
		}
	}
}

// torchServeStore is the link of the model dir that holds the model
// store a TorchServe container reads (--model-store, else the file's
// model_store), and where the store lies inside that dir.
func torchServeStore(pass *lint.Pass, file *lint.ServerFile) (*lint.Link, string) {
	store := ""
	if paths := file.Container.Invocation().ModelPaths; len(paths) > 0 {
		store = paths[0].Value
	} else if property, ok := file.Properties.Get("model_store"); ok {
		store = property.Value
	}
	for _, link := range pass.Target.Links {
		if link.Container != file.Container || link.Model == nil {
			continue
		}
		if inside, ok := lint.PathUnder(store, link.ServerPath.Value); ok {
			return link, inside
		}
	}
	return nil, ""
}

// torchServeVersion reads TorchServe's release from an image tag
// (pytorch/torchserve:0.12.0-gpu, pytorch/torchserve-kfs:0.8.2).
func torchServeVersion(reference string) ([2]int, bool) {
	m := servingTag.FindStringSubmatch(reference)
	if m == nil {
		return [2]int{}, false
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	return [2]int{major, minor}, err1 == nil && err2 == nil
}

func versionBefore(v, than [2]int) bool { return v[0] < than[0] || v[0] == than[0] && v[1] < than[1] }

// reportInFile reports a finding at a line of a server config file (0
// for the file as a whole), with the setting that names the file as the
// related location; a file in an image is reported at that setting.
func reportInFile(pass *lint.Pass, file *lint.ServerFile, line int, severity lint.Severity, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	setting := settingField(file)
	at, lineAt := file.At(line)
	if at == "" {
		pass.Report(lint.Diagnostic{Severity: severity, Path: setting, Message: text, Image: file.Image})
		return
	}
	pass.Report(lint.Diagnostic{Severity: severity, File: at, Line: lineAt, Message: text,
		Cause: &lint.Cause{Path: setting, Message: fmt.Sprintf("%s names %s", file.Setting.From, file.Setting.Value)}})
}

// reportAtLink reports a finding where a link's model path is set: the
// config file entry that lists it, or the manifest field.
func reportAtLink(pass *lint.Pass, link *lint.Link, format string, args ...any) {
	if listed := link.Listed; listed != nil {
		reportInFile(pass, listed.File, listed.Line, pass.Rule.Severity, format, args...)
		return
	}
	pass.Reportf(linkField(link), format, args...)
}

// settingField is the manifest field that names a server's config file.
func settingField(file *lint.ServerFile) string {
	if file.Setting.Field == "" {
		return file.Container.Path + ".image" // the image's own start names it
	}
	return file.Container.Path + "." + file.Setting.Field
}
