// Package crd checks custom objects against the CustomResourceDefinitions
// of the linted files, as the API server does: the fields its structural
// schema does not have (which strict field validation, the default of
// kubectl apply, rejects), and the types, formats, enums and required
// fields of its OpenAPI schema. It uses the API server's own code
// (k8s.io/apiextensions-apiserver). A CRD in the files is the one the user
// runs, so it decides over the types modellint bundles.
package crd

import (
	"fmt"
	"strings"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/modellint/modellint/lint/manifest"
)

// Schemas are the schemas of the CRDs of a set, by "group/version/Kind".
type Schemas struct {
	versions map[string]*schema
}

// schema is one served version of a CRD.
type schema struct {
	crd        *manifest.Object
	structural *structuralschema.Structural
	validator  *validate.SchemaValidator
}

// Read collects the schemas of CustomResourceDefinitions. A CRD whose
// schema does not read is left out: it is the API server's to refuse, not
// a reason to judge its objects. Of two CRDs of one version the first
// counts.
func Read(crds []*manifest.Object) *Schemas {
	s := &Schemas{versions: map[string]*schema{}}
	for _, o := range crds {
		if o.Kind != "CustomResourceDefinition" || o.APIVersion != "apiextensions.k8s.io/v1" {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if o.Decode(&crd) != nil {
			continue
		}
		for _, version := range crd.Spec.Versions {
			if !version.Served || version.Schema == nil || version.Schema.OpenAPIV3Schema == nil {
				continue
			}
			var internal apiextensions.JSONSchemaProps
			if apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(version.Schema.OpenAPIV3Schema, &internal, nil) != nil {
				continue
			}
			structural, err := structuralschema.NewStructural(&internal)
			if err != nil {
				continue
			}
			// The API server's validator (validation.NewSchemaValidator) is
			// kube-openapi's on the same schema, without CEL rules.
			validator := validate.NewSchemaValidator(structural.ToKubeOpenAPI(), nil, "", strfmt.Default)
			key := crd.Spec.Group + "/" + version.Name + "/" + crd.Spec.Names.Kind
			if _, seen := s.versions[key]; seen {
				continue
			}
			s.versions[key] = &schema{crd: o, structural: structural, validator: validator}
		}
	}
	return s
}

// Len is how many CRD versions the schemas hold.
func (s *Schemas) Len() int { return len(s.versions) }

// Check validates an object against its CRD's schema: the fields the
// schema does not have, and the values it refuses. ok is false when no CRD
// of its group, version and kind was read.
func (s *Schemas) Check(o *manifest.Object) (unknown, refused []*manifest.InvalidError, ok bool) {
	version := s.versions[o.APIVersion+"/"+o.Kind]
	if version == nil || !strings.Contains(o.APIVersion, "/") {
		return nil, nil, false
	}
	var value map[string]any
	if err := o.Decode(&value); err != nil {
		return nil, nil, true // its decode error is reported where the object is read
	}
	crd := version.crd.ID()
	for _, err := range version.validator.Validate(value).Errors {
		path := ""
		if v, ok := err.(*openapierrors.Validation); ok {
			path = fieldPath(v.Name)
		}
		refused = append(refused, &manifest.InvalidError{Object: o, Path: path,
			Message: fmt.Sprintf("%s (the schema of %s)", err.Error(), crd)})
	}
	pruned := pruning.PruneWithOptions(value, version.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	for _, path := range pruned {
		unknown = append(unknown, &manifest.InvalidError{Object: o, Path: fieldPath(path),
			Message: fmt.Sprintf("unknown field %s: the schema of %s has no such field, so strict field validation "+
				"(the default of kubectl apply) rejects the object", path, crd)})
	}
	return unknown, refused, true
}

// fieldPath is a path of the API server's messages as modellint writes
// field paths: without a leading dot.
func fieldPath(path string) string { return strings.TrimPrefix(path, ".") }
