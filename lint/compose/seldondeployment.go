package compose

import (
	"fmt"
	"slices"

	"github.com/modellint/modellint/lint/manifest"
)

// seldonV1Group is the API group of Seldon Core v1's SeldonDeployment.
const seldonV1Group = "machinelearning.seldon.io"

// seldonSystem is the namespace Seldon Core v1's operator is installed in
// unless told otherwise: the one whose seldon-config it reads.
const seldonSystem = "seldon-system"

// SeldonDeployments builds the prepackaged servers of each SeldonDeployment
// with the images of the set's seldon-config ConfigMap (its
// predictor_servers), when the set holds one: Seldon's operator reads them
// from there, and the chart's defaults are only what the chart writes
// there (manifest.SeldonConfig). With several, the one of seldon-system is
// used, else the first. It returns a note for the run's -v output when the
// ConfigMap cannot be read.
func SeldonDeployments(set *manifest.Set) ([]string, error) {
	configMap := seldonConfigMap(set)
	if configMap == nil {
		return nil, nil
	}
	byObject := map[*manifest.Object][]*manifest.Workload{}
	var deployments []*manifest.Object
	for _, w := range set.Workloads {
		if w.Object.Group() != seldonV1Group || w.Object.Kind != "SeldonDeployment" {
			continue
		}
		if byObject[w.Object] == nil {
			deployments = append(deployments, w.Object)
		}
		byObject[w.Object] = append(byObject[w.Object], w)
	}
	if len(deployments) == 0 {
		return nil, nil
	}
	config, err := manifest.ReadSeldonConfig(configMap)
	if err != nil {
		// getPredictorServerConfigsFromMap panics on it.
		return []string{fmt.Sprintf("%s is not read: %v; Seldon's operator cannot read it either and panics, and the "+
			"prepackaged servers are built from Seldon Core's defaults", configMap.ID(), err)}, nil
	}
	for _, o := range deployments {
		if err := o.UseSeldonConfig(config, byObject[o]); err != nil {
			return nil, err
		}
	}
	return nil, nil // each SeldonDeployment's -v note names the ConfigMap (manifest.NotLinted)
}

// seldonConfigMap is the seldon-config ConfigMap of the set that the API
// server accepts, seldon-system's first; nil when there is none.
func seldonConfigMap(set *manifest.Set) *manifest.Object {
	rejected := map[*manifest.Object]bool{}
	for _, invalid := range set.Invalid {
		rejected[invalid.Object] = true
	}
	var configMaps []*manifest.Object
	for _, o := range set.OfKinds("ConfigMap") {
		if o.Name == manifest.SeldonConfigName && o.Group() == "" && !rejected[o] {
			configMaps = append(configMaps, o)
		}
	}
	if i := slices.IndexFunc(configMaps, func(o *manifest.Object) bool { return o.Namespace == seldonSystem }); i >= 0 {
		return configMaps[i]
	}
	if len(configMaps) > 0 {
		return configMaps[0]
	}
	return nil
}
