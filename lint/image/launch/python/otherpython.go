package python

import (
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// OtherSite is a module found in the installed packages of another Python
// of the image than the one that runs: the usual result of pip installing
// with one interpreter (python3.10, the system's, a venv) while another
// runs the app.
type OtherSite struct {
	// File is the module's file or package directory; Dir the site dir it
	// is in; Dist the distribution that installed it, from a dist-info's
	// top_level.txt or name ("" when none says).
	File, Dir, Dist string
	// Python is the interpreter whose packages Dir holds, "" when the image
	// has none there.
	Python string
	// UserHome is the HOME whose user site Dir is, when it is the user
	// site of the Python that runs under another HOME (pip install --user
	// as root, the app run as another uid): "" otherwise.
	UserHome string
	// Blocked are the directories above a UserHome site that the user may
	// not enter, topmost first.
	Blocked []launch.Dir
}

// otherSiteRoots are where interpreters keep installed packages, one level
// of PYTHON-VERSION directories below (lib/python3.10/site-packages).
var otherSiteRoots = []string{"/usr/local/lib", "/usr/lib", "/usr/local/lib64", "/usr/lib64", "/opt/conda/lib", "/root/.local/lib"}

var pythonLibDir = lazyregexp.New(`^python\d+(\.\d+)?t?$`)

// eggInfo matches setuptools' metadata directory (NAME-VERSION-pyX.Y.egg-info,
// or NAME-VERSION.egg-info as Debian's packages install it).
var eggInfo = lazyregexp.New(`^([A-Za-z0-9_.]+)-([^-]+?)(?:-py\d+(?:\.\d+)?)?\.egg-info$`)

// maxOtherSites bounds the site dirs of other Pythons looked at.
const maxOtherSites = 32

// otherSites lists the site dirs of the image's other Pythons under the
// standard prefixes and /opt/*/lib (conda, venvs), at most maxOtherSites;
// they are listed once for each interpreter, then asked for each missing
// module.
func (c *checker) otherSites(in *Interpreter) []string {
	if sites, ok := c.others[in]; ok {
		return sites
	}
	sites := c.listOtherSites(in)
	if c.others == nil {
		c.others = map[*Interpreter][]string{}
	}
	c.others[in] = sites
	return sites
}

func (c *checker) listOtherSites(in *Interpreter) []string {
	var sites []string
	roots := append([]string(nil), otherSiteRoots...)
	if node, err := c.r.fs.Stat("/opt"); err == nil && node.Type == rootfs.Dir {
		children := node.Children()
		slices.Sort(children)
		for _, child := range children {
			roots = append(roots, path.Join("/opt", child, "lib"))
		}
	}
	for _, root := range roots {
		node, err := c.r.fs.Stat(root)
		if err != nil || node.Type != rootfs.Dir {
			continue
		}
		children := node.Children()
		slices.Sort(children)
		for _, child := range children {
			if !pythonLibDir.MatchString(child) {
				continue
			}
			for _, name := range []string{"site-packages", "dist-packages"} {
				site := path.Join(root, child, name)
				if len(sites) < maxOtherSites && c.r.isDir(site) && !slices.Contains(in.Site, site) && !slices.Contains(sites, site) {
					sites = append(sites, site)
				}
			}
		}
	}
	return sites
}

// otherSite looks for a missing top-level module in the other Pythons'
// site dirs, at most three places.
func (c *checker) otherSite(module string, in *Interpreter) []OtherSite {
	if strings.Contains(module, ".") {
		return nil
	}
	var found []OtherSite
	for _, site := range c.otherSites(in) {
		if len(found) >= 3 {
			break
		}
		version := strings.TrimPrefix(path.Base(path.Dir(site)), "python")
		search := &searchPath{r: c.r, entries: []string{site}, version: version}
		file, pkg, namespace := search.moduleIn(site, module)
		if file == "" && !namespace {
			continue
		}
		if pkg || namespace {
			file = path.Join(site, module)
		}
		other := OtherSite{File: file, Dir: site, Dist: c.distributionOf(site, module), Python: c.pythonOf(site), UserHome: userHome(site, in)}
		if other.UserHome != "" && c.restricted() {
			other.Blocked = launch.BlockingDirs(c.r.fs, c.user, path.Join(site, "_"))
		}
		found = append(found, other)
	}
	return found
}

// userSite matches a user site-packages: HOME/.local/lib/pythonX.Y/site-packages.
var userSite = lazyregexp.New(`^(/.*)/\.local/lib/python(\d+\.\d+)/site-packages$`)

// userHome is the HOME of a user site of the running Python's version
// that is not the one it adds, "" when site is none such.
func userHome(site string, in *Interpreter) string {
	m := userSite.FindStringSubmatch(site)
	if m == nil || m[2] != in.Version || in.UserSite == "" || in.UserSite == site {
		return ""
	}
	return m[1]
}

// distributionOf names the distribution of a site dir that provides a
// top-level module: the dist-info whose top_level.txt lists it, else the
// one whose name is the module's. A site's distributions are indexed once,
// then asked for each missing module.
func (c *checker) distributionOf(site, module string) string {
	index, ok := c.r.distributions[site]
	if !ok {
		index = c.indexDistributions(site)
		if c.r.distributions == nil {
			c.r.distributions = map[string]siteDistributions{}
		}
		c.r.distributions[site] = index
	}
	if dist, ok := index.byModule[module]; ok {
		return dist
	}
	return index.byName[strings.ToLower(module)]
}

// siteDistributions are the distributions of a site dir ("torch 2.4.0")
// by the top-level modules they list and by their names (lower case), the
// first in the order of the dir's entries.
type siteDistributions struct {
	byModule, byName map[string]string
}

func (c *checker) indexDistributions(site string) siteDistributions {
	index := siteDistributions{byModule: map[string]string{}, byName: map[string]string{}}
	node := c.r.stat(site)
	if node == nil || node.Type != rootfs.Dir {
		return index
	}
	for _, child := range node.Children() {
		m := distInfo.FindStringSubmatch(child)
		if m == nil {
			m = eggInfo.FindStringSubmatch(child)
		}
		if m == nil {
			continue
		}
		dist := m[1] + " " + m[2]
		for _, module := range c.topLevel(path.Join(site, child), m[1]) {
			if _, ok := index.byModule[module]; !ok {
				index.byModule[module] = dist
			}
		}
		if name := strings.ToLower(m[1]); index.byName[name] == "" {
			index.byName[name] = dist
		}
	}
	return index
}

// pythonOf finds the interpreter of a site dir PREFIX/lib/pythonX.Y/…:
// PREFIX/bin's, or for Debian's /usr/local/lib/pythonX.Y/dist-packages
// /usr/bin's.
func (c *checker) pythonOf(site string) string {
	versionDir := path.Dir(site)
	prefix := path.Dir(path.Dir(versionDir))
	names := []string{path.Base(versionDir), "python3", "python"}
	dirs := []string{path.Join(prefix, "bin")}
	if prefix == "/usr/local" && path.Base(site) == "dist-packages" {
		dirs = append(dirs, "/usr/bin")
	}
	for _, dir := range dirs {
		for _, name := range names {
			if candidate := path.Join(dir, name); c.r.isFile(candidate) {
				return candidate
			}
		}
	}
	return ""
}
