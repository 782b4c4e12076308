// Package rulestest runs one rule over a fixture dir and checks what it
// found and skipped against comments in the fixture, the way
// golang.org/x/tools/go/analysis/analysistest checks `// want` comments.
//
// A fixture dir is linted as `modellint .` run in it, with only the rule
// enabled. It may hold:
//
//   - YAML manifests whose lines carry `# want MDL205 "regexp"` where a
//     finding must land (several on one line are allowed; `# want
//     MDL205:warning "regexp"` wants its severity too), and
//     `# want-skip MDL212 "regexp"` on a workload's `kind:` line, where the
//     rule must skip that workload with a reason the regexp matches;
//   - want.txt (WantFile) for what has no manifest line, one a line:
//     `PATH MDL101 "regexp"` for a finding about a file or dir of the
//     fixture, `PATH want-skip MDL109 "regexp"` for a model dir the rule
//     skips;
//   - .modellint.yaml, the config the run reads;
//   - nodes.yaml (NodesFile), the cluster's nodes as --cluster gives them;
//   - images.yaml (ImagesFile), the images the manifests name, in
//     imagetest's spec format: built in code and read from an OCI layout
//     (a tarball when the spec's sources leave out layouts), as --image
//     REF=SOURCE maps them.
//
// Every input must read, every finding must be wanted where it lands and
// every want met. A skip nobody wanted is no error, but a fixture must show
// its rule firing at least once and passing (running on a target and
// finding nothing) at least once; the engine reports the meta rules
// (MDL0xx) without evaluating targets, so for them a finding is enough.
package rulestest
