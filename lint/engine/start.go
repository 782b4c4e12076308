package engine

import (
	"sync"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/python"
	"github.com/modellint/modellint/lint/image/rootfs"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

// A start is a container's start replayed in its image: the start path and
// the program its interpreters load. The image loader reads what the
// replays ask for (a script's interpreter, a module the entry imports) a
// round at a time; the replay of the last round is what the container's
// bundle carries, so each start is replayed once per round and not again.

// start is one container's (or a lone image's) start in its image.
type start struct {
	workload  *manifest.Workload  // nil for an image on its own
	container *manifest.Container // nil for an image on its own
	// spec is composed from the manifest and the image config on the first
	// replay.
	spec *launch.Spec
	arch string
	// analysed are the replays and the image's Rounds when they were made.
	path     *launch.Analysis
	program  *python.Analysis
	analysed int
}

// replay replays the start unless it was replayed since the image last
// gained facts.
func (s *start) replay(img *image.Image) {
	if s.path != nil && s.analysed == img.Rounds() {
		return
	}
	if s.spec == nil {
		spec := launch.ForImage(img)
		if s.container != nil {
			spec = containerSpec(s.container, s.workload.Spec, img)
		}
		s.spec = &spec
	}
	arch := s.arch
	if arch == "" && img.Config != nil {
		arch = img.Config.Architecture
	}
	spec := *s.spec
	spec.Serves = servesModels
	s.path = launch.Analyze(img, spec, arch)
	s.program = python.Analyze(img, programContext(s.workload, s.container, *s.spec), s.path.Runs)
	s.analysed = img.Rounds()
}

// servesModels says a command line starts a known model server.
func servesModels(argv []string) bool { return server.ByProgram(argv) != nil }

// startPlan are the starts of the containers that run one image.
type startPlan []*start

// needs are the files the starts' replays ask for, given what is read of
// img so far: the loader's Options.Needs.
func (plan startPlan) needs(img *image.Image) []*rootfs.Node {
	var needs []*rootfs.Node
	for _, s := range plan {
		s.replay(img)
		needs = append(append(needs, s.path.Needs...), s.program.Needs...)
		needs = append(needs, configFileNeeds(s.container, img)...)
	}
	return needs
}

// startKey is a container's start in an image: a lone image's has no
// container.
type startKey struct {
	container *manifest.Container
	img       *image.Image
}

// starts keeps the replays of an image read until the bundles take them.
type starts struct {
	mu     sync.Mutex
	byKey  map[startKey]*start
	config *lint.Config
}

// plan makes the starts of the containers that run an image; users is nil
// for an image on its own.
func (all *starts) plan(users []imageUse) startPlan {
	if len(users) == 0 {
		return startPlan{{arch: all.config.Cluster.Architecture}}
	}
	plan := make(startPlan, 0, len(users))
	for _, use := range users {
		w := use.target.Workload
		plan = append(plan, &start{workload: w, container: use.container, arch: podArch(w, all.config)})
	}
	return plan
}

// add keeps the replays of an image read, replaying those that are out
// of date.
func (all *starts) add(plan startPlan, img *image.Image) {
	if img == nil || img.FS() == nil {
		return
	}
	all.mu.Lock()
	defer all.mu.Unlock()
	if all.byKey == nil {
		all.byKey = map[startKey]*start{}
	}
	for _, s := range plan {
		s.replay(img)
		all.byKey[startKey{s.container, img}] = s
	}
}

// take hands a bundle the replay of its start, and forgets it.
func (all *starts) take(container *manifest.Container, img *image.Image) *start {
	all.mu.Lock()
	defer all.mu.Unlock()
	key := startKey{container, img}
	s := all.byKey[key]
	delete(all.byKey, key)
	return s
}
