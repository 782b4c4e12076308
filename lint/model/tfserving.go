package model

import "sort"

// readTFServing reads a TF Serving base path: the children that parse as
// versions (dirs, and files, which TF Serving does not tell apart), the
// ones it ignores, and a SavedModel written directly into the base path.
func (l *loader) readTFServing() error {
	m := l.model
	dirs, files := l.tree.children("")
	for _, name := range savedModelFiles {
		if l.tree.file(name) != nil {
			loose, err := l.readSavedModelDir("")
			if err != nil {
				return err
			}
			m.Loose = loose
			break
		}
	}
	for _, name := range dirs {
		number, ok := tfServingVersion(name)
		if !ok {
			m.Ignored = append(m.Ignored, Ignored{Name: name, IsDir: true, Reason: IgnoredNotNumber})
			continue
		}
		version := Version{Name: name, Path: name, Number: number, IsDir: true}
		version.Bytes, version.Files = l.tree.bytesUnder(name)
		m.Versions = append(m.Versions, version)
	}
	for _, name := range files {
		if number, ok := tfServingVersion(name); ok {
			file := l.tree.file(name)
			m.Versions = append(m.Versions, Version{Name: name, Path: name, Number: number, Bytes: file.Size, Files: 1})
		}
	}
	sortVersions(m.Versions)
	// The default policy, latest { num_versions: 1 }, serves the highest
	// number; of duplicates (1 and 01) the one later in name order.
	if n := len(m.Versions); n > 0 {
		latest := &m.Versions[n-1]
		latest.Resident = true
		m.ResidentVersions, m.ResidentBytes = 1, latest.Bytes
	}
	// The newest versions are read, the latest (resident) among them.
	read := 0
	for i := len(m.Versions) - 1; i >= 0; i-- {
		version := &m.Versions[i]
		if !version.IsDir {
			continue
		}
		if read == readVersionLimit {
			m.UnreadVersions++
			continue
		}
		saved, err := l.readSavedModelDir(version.Path)
		if err != nil {
			return err
		}
		version.SavedModel = saved
		read++
	}
	return nil
}

// MaxReadVersions bounds the version dirs of a TF Serving base path whose
// SavedModels are read: a real base path keeps a handful, the default
// policy loads only the latest, and every version read is a graph parsed
// and held (~10 KiB each for the smallest model); 100,000 of them would
// take half a minute and a GiB. Older ones are listed only.
const MaxReadVersions = 1000

// readVersionLimit is MaxReadVersions; tests lower it.
var readVersionLimit = MaxReadVersions

// sortVersions orders versions by number, then by name.
func sortVersions(versions []Version) {
	sort.Slice(versions, func(i, j int) bool {
		if versions[i].Number != versions[j].Number {
			return versions[i].Number < versions[j].Number
		}
		return versions[i].Name < versions[j].Name
	})
}
