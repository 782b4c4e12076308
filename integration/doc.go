// Package integration tests how modellint plugs into CI: the GitHub Action
// and its installer, the pre-commit hooks, the GitLab templates, the release
// archives and the container image, each with the real tool where one runs
// on this machine (actionlint, shellcheck, pre-commit, a release server).
package integration
