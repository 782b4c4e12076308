package cuda

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// Version is a dotted version: 12.2, 535.104.05.
type Version []int

// ParseVersion reads "12.2.2" or "535.104.05"; ok is false for anything else.
func ParseVersion(text string) (Version, bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, false
	}
	var v Version
	for _, part := range strings.Split(text, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || len(v) >= 4 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

// Compare orders versions; missing parts count as 0.
func (v Version) Compare(o Version) int {
	for i := 0; i < max(len(v), len(o)); i++ {
		var a, b int
		if i < len(v) {
			a = v[i]
		}
		if i < len(o) {
			b = o[i]
		}
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (v Version) String() string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ".")
}

// DriverString renders a driver version as NVIDIA writes them, with
// two-digit minor and patch parts: 450.80.02.
func (v Version) DriverString() string {
	parts := make([]string, len(v))
	for i, n := range v {
		if i == 0 {
			parts[i] = strconv.Itoa(n)
		} else {
			parts[i] = fmt.Sprintf("%02d", n)
		}
	}
	return strings.Join(parts, ".")
}

// MajorMinor keeps the first two parts: 12.2.2 → 12.2.
func (v Version) MajorMinor() Version {
	if len(v) > 2 {
		return v[:2]
	}
	return v
}

// Release is one CUDA toolkit release and the minimum Linux x86_64 driver
// it needs for full functionality.
type Release struct {
	Toolkit Version
	Driver  Version
}

// releases is Table 3 ("CUDA Toolkit and Corresponding Driver Versions",
// Linux x86_64, GA releases) of NVIDIA's CUDA Toolkit release notes,
// https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/ (13.2 Update 2
// edition), newest first. The driver a toolkit's GA release needs is also
// the CUDA version that driver reports (nvidia-smi "CUDA Version").
var releases = []Release{
	{Version{13, 2}, Version{595, 45, 4}},
	{Version{13, 1}, Version{590, 44, 1}},
	{Version{13, 0}, Version{580, 65, 6}},
	{Version{12, 9}, Version{575, 51, 3}},
	{Version{12, 8}, Version{570, 26}},
	{Version{12, 6}, Version{560, 28, 3}},
	{Version{12, 5}, Version{555, 42, 2}},
	{Version{12, 4}, Version{550, 54, 14}},
	{Version{12, 3}, Version{545, 23, 6}},
	{Version{12, 2}, Version{535, 54, 3}},
	{Version{12, 1}, Version{530, 30, 2}},
	{Version{12, 0}, Version{525, 60, 13}},
	{Version{11, 8}, Version{520, 61, 5}},
	{Version{11, 7}, Version{515, 43, 4}},
	{Version{11, 6}, Version{510, 39, 1}},
	{Version{11, 5}, Version{495, 29, 5}},
	{Version{11, 4}, Version{470, 42, 1}},
	{Version{11, 3}, Version{465, 19, 1}},
	{Version{11, 2}, Version{460, 27, 3}},
	{Version{11, 1}, Version{455, 23}},
	{Version{11, 0}, Version{450, 36, 6}},
	{Version{10, 2}, Version{440, 33}},
	{Version{10, 1}, Version{418, 39}},
	{Version{10, 0}, Version{410, 48}},
}

// minorCompatibility is the oldest driver each CUDA major runs on with
// minor-version compatibility (no PTX JIT of newer code), from
// https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html.
var minorCompatibility = map[int]Version{13: {580, 65, 6}, 12: {525, 60, 13}, 11: {450, 80, 2}}

// MinimumDriver is the driver a toolkit version needs for full
// functionality, and false for versions the table does not know.
func MinimumDriver(toolkit Version) (Version, bool) {
	want := toolkit.MajorMinor()
	for _, release := range releases {
		if release.Toolkit.Compare(want) == 0 {
			return release.Driver, true
		}
	}
	return nil, false
}

// MinorCompatibleDriver is the oldest driver the toolkit's major version
// runs on at all.
func MinorCompatibleDriver(toolkit Version) (Version, bool) {
	if len(toolkit) == 0 {
		return nil, false
	}
	driver, ok := minorCompatibility[toolkit[0]]
	return driver, ok
}

// DriverCUDA is the newest CUDA version a driver supports: what the
// NVIDIA container toolkit compares "cuda>=X" requirements with.
func DriverCUDA(driver Version) (Version, bool) {
	for _, release := range releases {
		if driver.Compare(release.Driver) >= 0 {
			return release.Toolkit, true
		}
	}
	return nil, false
}

// Toolkit is what an image says about its CUDA toolkit.
type Toolkit struct {
	Version Version
	// From names the source: "NVIDIA_REQUIRE_CUDA", "CUDA_VERSION", a label,
	// or the in-image version.json path.
	From string
	// Require is NVIDIA_REQUIRE_CUDA as written, "" when absent.
	Require string
	// RequireDisabled is NVIDIA_DISABLE_REQUIRE set true: the container
	// toolkit then skips its check.
	RequireDisabled bool
	// FromFramework says the version is a framework wheel's own CUDA
	// (torch's), not the base image's toolkit.
	FromFramework bool
}

var requireCUDA = lazyregexp.New(`(?:^|[\s,])cuda>=([0-9]+(?:\.[0-9]+){0,2})`)

// FromEnv finds the toolkit version in the image env and labels, in the
// order the NVIDIA container toolkit trusts them.
func FromEnv(env []string, labels map[string]string) (Toolkit, bool) {
	values := map[string]string{}
	for _, entry := range env {
		key, value, _ := strings.Cut(entry, "=")
		values[key] = value
	}
	toolkit := Toolkit{Require: values["NVIDIA_REQUIRE_CUDA"]}
	if disabled, err := strconv.ParseBool(values["NVIDIA_DISABLE_REQUIRE"]); err == nil && disabled {
		toolkit.RequireDisabled = true
	}
	if match := requireCUDA.FindStringSubmatch(toolkit.Require); match != nil {
		if v, ok := ParseVersion(match[1]); ok {
			toolkit.Version, toolkit.From = v, "NVIDIA_REQUIRE_CUDA"
			return toolkit, true
		}
	}
	if v, ok := ParseVersion(values["CUDA_VERSION"]); ok {
		toolkit.Version, toolkit.From = v, "CUDA_VERSION"
		return toolkit, true
	}
	for _, label := range []string{"com.nvidia.cuda.version"} {
		if v, ok := ParseVersion(labels[label]); ok {
			toolkit.Version, toolkit.From = v, "label "+label
			return toolkit, true
		}
	}
	return toolkit, false
}

// FromVersionJSON reads /usr/local/cuda/version.json ({"cuda": {"version":
// "12.2.2"}}) or the older version.txt ("CUDA Version 10.1.243").
func FromVersionJSON(data []byte) (Version, bool) {
	var doc struct {
		CUDA struct {
			Version string `json:"version"`
		} `json:"cuda"`
	}
	if json.Unmarshal(data, &doc) == nil && doc.CUDA.Version != "" {
		return ParseVersion(doc.CUDA.Version)
	}
	text := strings.TrimSpace(string(data))
	if rest, ok := strings.CutPrefix(text, "CUDA Version "); ok {
		return ParseVersion(strings.Fields(rest + " ")[0])
	}
	return nil, false
}

// Satisfied evaluates NVIDIA_REQUIRE_CUDA for a driver the way
// libnvidia-container does: space-separated alternatives are ORed, commas
// AND conditions; "cuda>=X" compares with the driver's CUDA version,
// "driver>=X" with the driver. A brand condition holds when brand is
// unknown, so a data-center forward-compatibility branch is not flagged
// for want of the GPU's brand.
func Satisfied(require string, driver Version, brand string) (bool, error) {
	driverCUDA, _ := DriverCUDA(driver)
	alternatives := strings.Fields(require)
	if len(alternatives) == 0 {
		return true, nil
	}
	for _, alternative := range alternatives {
		ok := true
		for _, condition := range strings.Split(alternative, ",") {
			holds, err := evaluate(condition, driver, driverCUDA, brand)
			if err != nil {
				return false, err
			}
			ok = ok && holds
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

var conditionPattern = lazyregexp.New(`^([a-z]+)(>=|<=|!=|=|<|>)(.+)$`)

func evaluate(condition string, driver, driverCUDA Version, brand string) (bool, error) {
	match := conditionPattern.FindStringSubmatch(condition)
	if match == nil {
		return false, fmt.Errorf("NVIDIA_REQUIRE_CUDA condition %q is not KEY<op>VALUE", condition)
	}
	key, op, value := match[1], match[2], match[3]
	var have Version
	switch key {
	case "cuda":
		have = driverCUDA
	case "driver":
		have = driver
	case "brand":
		return brand == "" || (op == "=" && strings.EqualFold(brand, value)) || (op == "!=" && !strings.EqualFold(brand, value)), nil
	default:
		return true, nil // arch=, and keys newer than this reader
	}
	want, ok := ParseVersion(value)
	if !ok || have == nil {
		return false, fmt.Errorf("NVIDIA_REQUIRE_CUDA condition %q: not a version", condition)
	}
	c := have.Compare(want)
	switch op {
	case ">=":
		return c >= 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	case "<":
		return c < 0, nil
	case "=":
		return c == 0, nil
	}
	return c != 0, nil
}
