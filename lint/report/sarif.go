package report

import (
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
)

// SARIF 2.1.0 as GitHub code scanning reads it. Only the properties modellint
// fills are declared; optional ones are omitted when empty.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	// sarifSourceRoot is the base of every relative artifact URI: the
	// directory modellint ran in, usually the repository root.
	sarifSourceRoot = "%SRCROOT%"
	// sarifFingerprint names our fingerprint (lint.Fingerprints); the
	// version suffix lets its inputs change later without matching old
	// alerts wrongly.
	sarifFingerprint = "modellint/v1"
	// sarifTextLimit is GitHub's limit for rule descriptions, in characters.
	sarifTextLimit = 1024
	// sarifNameLimit is GitHub's limit for rule names.
	sarifNameLimit = 255
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool              `json:"tool"`
	Invocations       []sarifInvocation      `json:"invocations"`
	AutomationDetails sarifAutomationDetails `json:"automationDetails"`
	ColumnKind        string                 `json:"columnKind"`
	// OriginalURIBaseIDs says what %SRCROOT%, the base of every relative
	// artifact URI, stands for: the directory the report's paths are
	// relative to.
	OriginalURIBaseIDs map[string]sarifBaseLocation `json:"originalUriBaseIds"`
	// Results is never omitted: GitHub rejects a run without the array.
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string                     `json:"name"`
	Version         string                     `json:"version,omitempty"`
	SemanticVersion string                     `json:"semanticVersion,omitempty"`
	InformationURI  string                     `json:"informationUri"`
	Rules           []sarifReportingDescriptor `json:"rules"`
}

type sarifReportingDescriptor struct {
	ID                   string               `json:"id"`
	Name                 string               `json:"name,omitempty"`
	ShortDescription     sarifMessage         `json:"shortDescription"`
	FullDescription      sarifMessage         `json:"fullDescription"`
	Help                 sarifMessage         `json:"help"`
	HelpURI              string               `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfiguration   `json:"defaultConfiguration"`
	Properties           *sarifRuleProperties `json:"properties,omitempty"`
}

// sarifMessage is both a message and a multiformatMessageString.
type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifRuleProperties struct {
	Tags []string `json:"tags,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Message        sarifMessage                 `json:"message"`
	Level          string                       `json:"level"`
	Locations      []sarifLocation              `json:"locations,omitempty"`
	AssociatedRule *sarifReportingDescriptorRef `json:"associatedRule,omitempty"`
}

type sarifReportingDescriptorRef struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
}

type sarifAutomationDetails struct {
	ID string `json:"id"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifMessage       `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	RelatedLocations    []sarifLocation    `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	// Properties carry where inside an image a finding is (reference,
	// layer diff ID, in-image path): the location is the manifest line.
	Properties *sarifResultProperties `json:"properties,omitempty"`
	Fixes      []sarifFix             `json:"fixes,omitempty"`
}

type sarifResultProperties struct {
	Image *lint.ImageLocation `json:"image,omitempty"`
}

type sarifLocation struct {
	// ID and Message are set on related locations only.
	ID               *int                   `json:"id,omitempty"`
	Message          *sarifMessage          `json:"message,omitempty"`
	PhysicalLocation sarifPhysicalLocation  `json:"physicalLocation"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// sarifBaseLocation is an entry of originalUriBaseIds: the absolute URI
// of the base when the report was written knowing it, and what it is.
type sarifBaseLocation struct {
	URI         string       `json:"uri,omitempty"`
	Description sarifMessage `json:"description"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

func writeSARIF(w io.Writer, result *lint.Result, options Options) error {
	driver := sarifDriver{
		Name:           toolName,
		Version:        options.ToolVersion,
		InformationURI: informationURI,
		Rules:          []sarifReportingDescriptor{},
	}
	driver.Version, driver.SemanticVersion = sarifVersions(options.ToolVersion)
	ruleIndex := map[string]int{}
	for _, rule := range result.Rules {
		if _, seen := ruleIndex[rule.ID]; seen {
			continue
		}
		ruleIndex[rule.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule(rule))
	}
	// A finding of a rule the run was not given (one the engine reports
	// itself) still needs a descriptor for ruleIndex to point at.
	for _, finding := range result.Findings {
		if _, seen := ruleIndex[finding.RuleID]; seen {
			continue
		}
		ruleIndex[finding.RuleID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule(&lint.Rule{ID: finding.RuleID, Name: finding.RuleName, Severity: finding.Severity}))
	}

	run := sarifRun{
		Tool: sarifTool{Driver: driver},
		Invocations: []sarifInvocation{{
			ExecutionSuccessful:        len(result.InputErrors) == 0,
			ToolExecutionNotifications: sarifNotifications(result, ruleIndex),
		}},
		AutomationDetails:  sarifAutomationDetails{ID: toolName + "/"},
		ColumnKind:         "unicodeCodePoints",
		OriginalURIBaseIDs: map[string]sarifBaseLocation{sarifSourceRoot: sarifSourceRootLocation(options.BaseDir)},
		Results:            make([]sarifResult, 0, len(result.Findings)),
	}
	fingerprints := lint.Fingerprints(result.Findings)
	for i, finding := range result.Findings {
		run.Results = append(run.Results, sarifResultOf(finding, ruleIndex[finding.RuleID], fingerprints[i]))
	}
	return writeIndentedJSON(w, sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifVersions are driver.version, dotted numbers as SARIF asks
// (SARIF2005), and driver.semanticVersion: a release's own ("v1.4.0" →
// "1.4.0", "1.4.0"); a build between releases ("v1.4.0-3-gabc1234", "dev",
// a commit) becomes a pre-release of 0.0.0 or of the release it follows.
func sarifVersions(tool string) (version, semantic string) {
	if semverPattern.MatchString(tool) {
		semantic = strings.TrimPrefix(tool, "v")
		core, _, _ := strings.Cut(semantic, "-")
		core, _, _ = strings.Cut(core, "+")
		return core, semantic
	}
	identifier := strings.Trim(nonSemverChars.ReplaceAllString(tool, "-"), "-")
	if identifier == "" {
		identifier = "dev"
	}
	return "0.0.0", "0.0.0-" + identifier
}

// nonSemverChars are characters a pre-release identifier may not hold.
var nonSemverChars = lazyregexp.New(`[^0-9A-Za-z-]+`)

// semverPattern is Semantic Versioning 2.0, with the "v" Go tags carry.
var semverPattern = lazyregexp.New(`^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

func sarifRule(rule *lint.Rule) sarifReportingDescriptor {
	summary := firstNonEmpty(rule.Doc.Summary, rule.Name, rule.ID)
	descriptor := sarifReportingDescriptor{
		ID:                   rule.ID,
		Name:                 truncateText(rule.Name, sarifNameLimit),
		ShortDescription:     sarifMessage{Text: truncateText(summary, sarifTextLimit)},
		FullDescription:      sarifMessage{Text: truncateText(firstNonEmpty(rule.Doc.Why, summary), sarifTextLimit)},
		DefaultConfiguration: sarifConfiguration{Level: sarifLevel(rule.Severity)},
		Properties:           &sarifRuleProperties{Tags: []string{toolName}},
	}
	// GitHub shows help but not helpUri, so the help ends with the link too.
	descriptor.Help = sarifMessage{Text: ruleText(rule, 0), Markdown: ruleMarkdown(rule)}
	if rule.Name != "" {
		docsURL := rule.DocsURL()
		descriptor.HelpURI = docsURL
		descriptor.Help.Text += "\nDocumentation: " + docsURL + "\n"
		descriptor.Help.Markdown += "\n[Documentation](" + docsURL + ")\n"
	}
	if rule.Artifact != "" {
		descriptor.Properties.Tags = append(descriptor.Properties.Tags, string(rule.Artifact))
	}
	return descriptor
}

func sarifLevel(severity lint.Severity) string {
	switch severity {
	case lint.Error:
		return "error"
	case lint.Warning:
		return "warning"
	}
	return "note"
}

func sarifResultOf(finding lint.Finding, ruleIndex int, fingerprint string) sarifResult {
	uri, baseID := sarifURI(finding.Location.File)
	location := sarifLocation{PhysicalLocation: sarifPhysicalLocation{
		ArtifactLocation: sarifArtifactLocation{URI: uri, URIBaseID: baseID},
	}}
	// A finding about a whole file has no region, which SARIF allows; a
	// made-up line 1 would point readers at the wrong place.
	// A finding about a whole file (a model dir's layout, an image) points
	// at its first line: code scanning needs a region to show it.
	location.PhysicalLocation.Region = &sarifRegion{StartLine: max(1, finding.Location.Line)}
	if finding.Location.Column > 0 {
		location.PhysicalLocation.Region.StartColumn = finding.Location.Column
	}
	if finding.Location.Path != "" {
		location.LogicalLocations = []sarifLogicalLocation{{FullyQualifiedName: objectPath(finding), Kind: "object"}}
	}
	converted := sarifResult{
		RuleID:              finding.RuleID,
		RuleIndex:           ruleIndex,
		Level:               sarifLevel(finding.Severity),
		Message:             sarifMessage{Text: firstNonEmpty(finding.Message, finding.RuleName, finding.RuleID)},
		Locations:           []sarifLocation{location},
		PartialFingerprints: map[string]string{sarifFingerprint: fingerprint},
		Fixes:               sarifFixesOf(finding.Fix),
	}
	for i, related := range finding.Related {
		converted.RelatedLocations = append(converted.RelatedLocations, sarifRelatedLocation(i, related))
	}
	if finding.Image != nil {
		converted.Properties = &sarifResultProperties{Image: finding.Image}
	}
	if finding.Suppression != nil {
		// Suppressed in the manifest itself, or outside it (the config
		// file, a baseline).
		kind := "external"
		if finding.Suppression.Kind == lint.SuppressedByAnnotation || finding.Suppression.Kind == lint.SuppressedByComment {
			kind = "inSource"
		}
		converted.Suppressions = []sarifSuppression{{Kind: kind, Justification: finding.Suppression.Reason}}
	}
	return converted
}

// sarifRelatedLocation is a related line with its id (what a message's
// [text](id) link would name) and what it is.
func sarifRelatedLocation(id int, related lint.RelatedLocation) sarifLocation {
	uri, baseID := sarifURI(related.File)
	location := sarifLocation{
		ID:      &id,
		Message: &sarifMessage{Text: related.Message},
		PhysicalLocation: sarifPhysicalLocation{
			ArtifactLocation: sarifArtifactLocation{URI: uri, URIBaseID: baseID},
		},
	}
	if related.Line > 0 {
		location.PhysicalLocation.Region = &sarifRegion{StartLine: related.Line, StartColumn: related.Column}
	}
	return location
}

// sarifSourceRootLocation is what %SRCROOT% stands for: the directory
// modellint ran in, as a file URI ending in a slash (SARIF 2.1.0 §3.14.14),
// when it is known.
func sarifSourceRootLocation(baseDir string) sarifBaseLocation {
	location := sarifBaseLocation{Description: sarifMessage{Text: "The directory modellint ran in; every path in the report is relative to it."}}
	if baseDir != "" && filepath.IsAbs(baseDir) {
		path := filepath.ToSlash(baseDir)
		if !strings.HasPrefix(path, "/") {
			path = "/" + path // a Windows drive: file:///C:/…
		}
		if !strings.HasSuffix(path, "/") {
			path += "/"
		}
		location.URI = (&url.URL{Scheme: "file", Path: path}).String()
	}
	return location
}

// sarifURI turns a report path into a URI reference: relative paths are
// resolved against %SRCROOT%, absolute ones become file URIs.
func sarifURI(path string) (uri, baseID string) {
	path = strings.ReplaceAll(path, "\\", "/")
	if strings.HasPrefix(path, "/") {
		return (&url.URL{Scheme: "file", Path: path}).String(), ""
	}
	segments := strings.Split(path, "/")
	for i, segment := range segments {
		// A colon is escaped too: in a first segment it would read as a scheme.
		segments[i] = strings.ReplaceAll(url.PathEscape(segment), ":", "%3A")
	}
	return strings.Join(segments, "/"), sarifSourceRoot
}

// sarifNotifications turn notes and skipped rule checks into notifications,
// so a consumer can tell a degraded run from a clean one.
func sarifNotifications(result *lint.Result, ruleIndex map[string]int) []sarifNotification {
	var notifications []sarifNotification
	// An input that could not be read is an error notification at its
	// file and line: the run is incomplete, which a consumer must see.
	for _, problem := range result.InputErrors {
		uri, baseID := sarifURI(problem.File)
		location := sarifLocation{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: uri, URIBaseID: baseID}}}
		if problem.Line > 0 {
			location.PhysicalLocation.Region = &sarifRegion{StartLine: problem.Line}
		}
		notifications = append(notifications, sarifNotification{Message: sarifMessage{Text: problem.Message}, Level: "error",
			Locations: []sarifLocation{location}})
	}
	for _, note := range append(result.Unused, result.Notes...) {
		notifications = append(notifications, sarifNotification{Message: sarifMessage{Text: note}, Level: "note"})
	}
	type skip struct{ rule, reason string }
	skipped := map[skip]int{}
	var order []skip
	for _, evaluation := range result.Evaluations {
		if evaluation.Status != lint.StatusSkip {
			continue
		}
		key := skip{evaluation.RuleID, firstNonEmpty(evaluation.Reason, "not applicable")}
		if skipped[key] == 0 {
			order = append(order, key)
		}
		skipped[key]++
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].rule != order[j].rule {
			return order[i].rule < order[j].rule
		}
		return order[i].reason < order[j].reason
	})
	for _, key := range order {
		notification := sarifNotification{
			Message: sarifMessage{Text: fmt.Sprintf("%s skipped for %s: %s",
				key.rule, plural(skipped[key], "target", "targets"), key.reason)},
			Level: "note",
		}
		if index, ok := ruleIndex[key.rule]; ok {
			notification.AssociatedRule = &sarifReportingDescriptorRef{ID: key.rule, Index: index}
		}
		notifications = append(notifications, notification)
	}
	return notifications
}

// truncateText shortens text to at most limit characters as JavaScript
// counts them (UTF-16 code units), which is how GitHub applies its limits.
// It cuts at a word boundary when one is near, and ends with an ellipsis.
func truncateText(text string, limit int) string {
	if utf16Len(text) <= limit {
		return text
	}
	const ellipsis = "…"
	budget := limit - utf16Len(ellipsis)
	cut, used := 0, 0
	for cut < len(text) {
		r, width := utf8.DecodeRuneInString(text[cut:])
		size := utf16.RuneLen(r)
		if size < 0 {
			size = 1
		}
		if used+size > budget {
			break
		}
		used += size
		cut += width
	}
	shortened := text[:cut]
	if space := strings.LastIndexAny(shortened, " \n\t"); space > len(shortened)*3/4 {
		shortened = shortened[:space]
	}
	return strings.TrimRight(shortened, " \n\t.,;:") + ellipsis
}

func utf16Len(text string) int {
	n := 0
	for _, r := range text {
		if size := utf16.RuneLen(r); size > 0 {
			n += size
		} else {
			n++
		}
	}
	return n
}

func firstNonEmpty(values ...string) string {
	for _, value := range values {
		if strings.TrimSpace(value) != "" {
			return value
		}
	}
	return ""
}
