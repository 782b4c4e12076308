package image

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/modellint/modellint/internal/fileread"

	"github.com/modellint/modellint/internal/message"
)

// maxTarballMembers bounds the outer tar of a docker-save file: real ones
// hold a few files per layer.
const maxTarballMembers = 1 << 16

// tarMember is where one member's bytes sit inside the outer tar.
type tarMember struct {
	offset, size int64
	link         string // for symlinked members (docker save dedups layers so)
}

// saveArchive is a docker-save (or `docker save` ≥ 25, OCI-in-tar) file with
// the position of every member, found in one scan that seeks over bodies.
//
// go-containerregistry's tarball.Image re-scans the whole archive for every
// member it opens and, for compressed layers, hashes every layer to build a
// manifest (pkg/v1/tarball/image.go, compressedImage.Manifest) — a full read
// of the image before the first header is seen. modellint only needs the
// config (whose diff IDs name the layers) and a reader per layer.
type saveArchive struct {
	file    *os.File
	members map[string]tarMember
}

func openSaveArchive(filePath string) (*saveArchive, error) {
	file, err := fileread.Open(filePath)
	if err != nil {
		return nil, err
	}
	archive := &saveArchive{file: file, members: map[string]tarMember{}}
	reader := tar.NewReader(file)
	for {
		header, err := reader.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			file.Close()
			return nil, fmt.Errorf("not a readable tar archive: %w", truncated(err))
		}
		if len(archive.members) >= maxTarballMembers {
			file.Close()
			return nil, fmt.Errorf("more than %d members: not a docker-save archive", maxTarballMembers)
		}
		memberName := path.Clean(header.Name)
		switch header.Typeflag {
		case tar.TypeReg:
			offset, err := file.Seek(0, io.SeekCurrent)
			if err != nil {
				file.Close()
				return nil, err
			}
			archive.members[memberName] = tarMember{offset: offset, size: header.Size}
		case tar.TypeSymlink, tar.TypeLink:
			target := header.Linkname
			if header.Typeflag == tar.TypeSymlink {
				target = path.Join(path.Dir(memberName), target)
			}
			archive.members[memberName] = tarMember{link: path.Clean(target)}
		}
	}
	return archive, nil
}

// open returns a reader over one member, following member links.
func (a *saveArchive) open(memberName string) (*io.SectionReader, error) {
	memberName = path.Clean(memberName)
	for hops := 0; hops < 16; hops++ {
		member, ok := a.members[memberName]
		if !ok {
			return nil, fmt.Errorf("no member %s in the archive", message.Quote(memberName))
		}
		if member.link == "" {
			return io.NewSectionReader(a.file, member.offset, member.size), nil
		}
		memberName = member.link
	}
	return nil, fmt.Errorf("member %s: link loop", message.Quote(memberName))
}

func (a *saveArchive) readSmall(memberName string, limit int64) ([]byte, error) {
	section, err := a.open(memberName)
	if err != nil {
		return nil, err
	}
	if section.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than %d", memberName, section.Size(), limit)
	}
	return io.ReadAll(section)
}

// descriptor picks the image in manifest.json: the one tagged ref when the
// archive holds several, else the only one.
func (a *saveArchive) descriptor(ref string) (*tarball.Descriptor, error) {
	data, err := a.readSmall("manifest.json", 16<<20)
	if err != nil {
		return nil, fmt.Errorf("not a docker-save archive: %w", err)
	}
	var manifest tarball.Manifest
	if err := json.Unmarshal(data, &manifest); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	switch len(manifest) {
	case 0:
		return nil, errors.New("manifest.json lists no image")
	case 1:
		return &manifest[0], nil
	}
	if ref != "" {
		if wanted, err := name.NewTag(ref); err == nil {
			for i := range manifest {
				for _, tag := range manifest[i].RepoTags {
					if parsed, err := name.NewTag(tag); err == nil && parsed.Name() == wanted.Name() {
						return &manifest[i], nil
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("the archive holds %d images and none is tagged %s", len(manifest), message.Quote(ref))
}

// SourceTags returns the references a docker-save tarball is tagged with
// (manifest.json RepoTags), so `modellint ./` can match an image built by an
// earlier CI step to the manifests that name it. Other sources have none.
func SourceTags(file string) []string {
	archive, err := openSaveArchive(file)
	if err != nil {
		return nil
	}
	defer archive.file.Close()
	data, err := archive.readSmall("manifest.json", 16<<20)
	if err != nil {
		return nil
	}
	var manifest tarball.Manifest
	if json.Unmarshal(data, &manifest) != nil {
		return nil
	}
	var tags []string
	for _, descriptor := range manifest {
		tags = append(tags, descriptor.RepoTags...)
	}
	return tags
}
