package engine

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/server"
)

// bakedDisplay names a model dir inside an image in reports, the way
// `docker cp` names paths in a container: REFERENCE:/path.
func bakedDisplay(img *image.Image, dir string) string { return img.Reference + ":" + dir }

// lintBakedModels finds the models servers load from their own image (the
// model path is under no volumeMount and no model dir on disk is linked to
// it), reads each from the image's merged layers as a model dir, links it
// to the containers that load it and returns the new model targets. Their
// findings name the image, the layer and the in-image path.
func lintBakedModels(targets []*lint.Target) ([]*lint.Target, error) {
	type key struct {
		img *image.Image
		dir string
	}
	loaded := map[key][]*model.Model{}
	var baked []*lint.Target
	for _, target := range targets {
		if target.Workload == nil || target.Workload.Platform == "kserve" {
			continue
		}
		var links []*lint.Link
		for _, link := range target.Links {
			img := target.Images[link.Container.Image]
			if link.Model != nil || link.Mount != nil || link.Container.FromServingRuntime || !strings.HasPrefix(link.ServerPath.Value, "/") ||
				img == nil || img.FS() == nil {
				links = append(links, link)
				continue
			}
			dir := path.Clean(link.ServerPath.Value)
			k := key{img, dir}
			models, seen := loaded[k]
			if !seen {
				var err error
				models, err = loadBaked(img, dir, link.Container.Runtime)
				if err != nil {
					return nil, err
				}
				loaded[k] = models
				for _, m := range models {
					baked = append(baked, &lint.Target{Model: m, Baked: &lint.BakedModel{Image: img, Path: strings.TrimPrefix(m.Dir, img.Reference+":")}})
				}
			}
			if len(models) == 0 {
				links = append(links, link)
				continue
			}
			for _, m := range models {
				copied := *link
				copied.Model, copied.How = m, "its path inside image "+img.Reference
				links = append(links, &copied)
				if target.Model == nil {
					target.Model = m
				}
			}
		}
		target.Links = links
	}
	return baked, nil
}

// loadBaked reads the model dir at an in-image path; a repository path
// gives each model dir directly inside it. A path that is not a directory
// in the image gives none (MDL403 reports it).
func loadBaked(img *image.Image, dir string, runtime *server.Runtime) ([]*model.Model, error) {
	fsys, err := img.DirFS(dir, model.ErrContentUnavailable)
	if err != nil {
		return nil, nil
	}
	options := model.LoadOptions{Expect: expectedLayout(runtime)}
	if !runtime.Model.Repository || model.IsModelDirFS(fsys) {
		m, err := model.LoadFSWith(fsys, bakedDisplay(img, dir), options)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bakedDisplay(img, dir), err)
		}
		return []*model.Model{m}, nil
	}
	node, err := img.FS().Stat(dir)
	if err != nil {
		return nil, nil
	}
	var models []*model.Model
	children := node.Children()
	sort.Strings(children)
	for _, child := range children {
		sub, err := img.DirFS(path.Join(dir, child), model.ErrContentUnavailable)
		if err != nil || !model.IsModelDirFS(sub) {
			continue
		}
		m, err := model.LoadFSWith(sub, bakedDisplay(img, path.Join(dir, child)), options)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bakedDisplay(img, path.Join(dir, child)), err)
		}
		models = append(models, m)
	}
	return models, nil
}

// locate adds the image location to the findings of a model read
// from an image: its reference, the in-image path and the layer that wrote
// it (or the nearest existing parent, for a file that is missing).
func locateBaked(b *lint.BakedModel, findings []lint.Finding) {
	prefix := b.Image.Reference + ":"
	for i := range findings {
		inImage := strings.TrimPrefix(findings[i].Location.File, prefix)
		location := &lint.ImageLocation{Reference: b.Image.Reference, Path: inImage}
		for p := inImage; p != "/" && p != "."; p = path.Dir(p) {
			if node, err := b.Image.FS().Lstat(p); err == nil {
				location.Layer = b.Image.LayerDigest(node)
				break
			}
		}
		findings[i].Image = location
	}
}
