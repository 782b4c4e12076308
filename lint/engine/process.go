package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/manifest"
	corev1 "k8s.io/api/core/v1"
)

// containerProcess composes the process a container starts: its user and
// HOME from the start and the image, the literal env of the ConfigMaps
// its envFrom names (as the kubelet puts them before env), and its
// mounts with the volumes behind them.
func containerProcess(c *manifest.Container, w *manifest.Workload, spec launch.Spec, img *image.Image, objects *manifest.Set) launch.Process {
	envFrom, defined, unknown := envFromValues(c, w, objects)
	var mounts []launch.Mount
	for i, mount := range c.VolumeMounts {
		m := launch.Mount{Path: mount.MountPath, Volume: mount.Name, ReadOnly: mount.ReadOnly,
			Field: fmt.Sprintf("%s.volumeMounts[%d]", c.Path, i)}
		if volume := volumeNamed(w.Spec, mount.Name); volume != nil {
			m.Kind = volumeKind(volume)
			switch m.Kind {
			case "configMap", "secret", "downwardAPI", "projected", "image":
				m.ReadOnly = true // the kubelet mounts these read-only
			}
		}
		mounts = append(mounts, m)
	}
	readOnlyRoot := c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem
	// The kubelet puts envFrom before env: the manifest's literal env is
	// the tail of the start's.
	literal := 0
	for _, variable := range c.Env {
		if variable.ValueFrom == nil {
			literal++
		}
	}
	at := max(len(spec.Env)-literal, 0)
	composed := spec
	composed.Env = slices.Concat(spec.Env[:at], envFrom, spec.Env[at:])
	process := launch.NewProcess(composed, img)
	process.SetMounts(mounts)
	process.ReadOnlyRoot = readOnlyRoot
	process.Defined, process.EnvUnknown = defined, unknown
	for _, variable := range c.Env {
		if variable.ValueFrom != nil && !slices.Contains(process.Defined, variable.Name) {
			process.Defined = append(process.Defined, variable.Name)
		}
	}
	return process
}

// envFromValues reads the container's envFrom sources: NAME=VALUE for
// the keys of a ConfigMap in the linted files, the names alone for a
// Secret's keys (their values are never copied), and the first source
// that is not there.
func envFromValues(c *manifest.Container, w *manifest.Workload, objects *manifest.Set) (entries, names []string, unknown string) {
	for _, from := range c.EnvFrom {
		kind, name := "", ""
		switch {
		case from.ConfigMapRef != nil:
			kind, name = "ConfigMap", from.ConfigMapRef.Name
		case from.SecretRef != nil:
			kind, name = "Secret", from.SecretRef.Name
		default:
			continue
		}
		var object *manifest.Object
		if objects != nil {
			object = objects.Find(kind, w.Object.Namespace, name)
		}
		if object == nil {
			if unknown == "" {
				unknown = kind + " " + name
			}
			continue
		}
		for _, field := range []string{"data", "stringData", "binaryData"} {
			value, ok := object.Lookup(field)
			if !ok {
				continue
			}
			data, ok := value.(map[string]any)
			if !ok {
				continue
			}
			for _, key := range slices.Sorted(maps.Keys(data)) {
				text, isText := data[key].(string)
				if kind == "ConfigMap" && field == "data" && isText {
					entries = append(entries, from.Prefix+key+"="+text)
				} else {
					names = append(names, from.Prefix+key)
				}
			}
		}
	}
	return entries, names, unknown
}

// volumeKind is the field of a volume's source.
func volumeKind(v *corev1.Volume) string {
	switch {
	case v.EmptyDir != nil:
		return "emptyDir"
	case v.PersistentVolumeClaim != nil:
		return "persistentVolumeClaim"
	case v.Ephemeral != nil:
		return "ephemeral"
	case v.HostPath != nil:
		return "hostPath"
	case v.ConfigMap != nil:
		return "configMap"
	case v.Secret != nil:
		return "secret"
	case v.DownwardAPI != nil:
		return "downwardAPI"
	case v.Projected != nil:
		return "projected"
	case v.NFS != nil:
		return "nfs"
	case v.CSI != nil:
		return "csi"
	case v.Image != nil:
		return "image"
	}
	return "volume"
}
