package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/report"
	"github.com/modellint/modellint/rules"

	"github.com/modellint/modellint/internal/message"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

// toolVersion prefers the linker-set version, then the module version that
// `go install …@vX` records.
func toolVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return version
}

func versionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print modellint's version",
		Args:  noArgs("version"),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(stdout, "modellint %s\n", toolVersion())
			return err
		},
	}
}

// rulesCommand lists the rules: a table, JSON for scripts (-f json), or
// docs/rules.md (-f markdown, or --markdown).
func rulesCommand(stdout io.Writer) *cobra.Command {
	var markdown bool
	var format string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List every rule: ID, name, default severity, artifact, summary",
		Args:  noArgs("rules"),
		RunE: func(*cobra.Command, []string) error {
			if markdown {
				format = "markdown"
			}
			switch format {
			case "markdown":
				return report.RulesMarkdown(stdout, rules.All())
			case "json":
				return report.RulesJSON(stdout, rules.All())
			case "table", "":
				return report.RuleList(stdout, rules.All(), terminalWidth(stdout))
			}
			return fmt.Errorf("rules --format %s: want table, json or markdown", message.Quote(format))
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "table", "table, json (every rule's ID, name, severity, documentation and URL) or markdown")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the rule catalogue as Markdown (docs/rules.md), as -f markdown")
	_ = cmd.RegisterFlagCompletionFunc("format", completeValues("table", "json", "markdown"))
	return cmd
}

func explainCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:               "explain RULE",
		Short:             "Print a rule's documentation: what, why, bad and good example, fix",
		ValidArgsFunction: completeExplain,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return errors.New("usage: modellint explain RULE (an ID such as MDL205, or a name)")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			rule := rules.Lookup(rules.All(), args[0])
			if rule == nil {
				return fmt.Errorf("no rule %s (modellint rules lists them)", message.Quote(args[0]))
			}
			return report.Explain(stdout, rule)
		},
	}
}

// configCommand prints the configuration a lint of PATH would use.
func configCommand(stdout io.Writer) *cobra.Command {
	var configPath string
	cmd := &cobra.Command{
		Use:   "config [PATH]",
		Short: "Print the configuration a lint of PATH uses, and the file it comes from",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			start := "."
			if len(args) == 1 {
				start = args[0]
			}
			config, err := loadConfig(configPath, []string{start})
			if err != nil {
				return err
			}
			data, err := effectiveYAML(config)
			if err != nil {
				return err
			}
			source := config.Path
			if source == "" {
				source = "none found: the defaults"
			}
			_, err = fmt.Fprintf(stdout, "# config file: %s\n# what it leaves unset is shown with the default in force\n%s", source, data)
			return err
		},
	}
	cmd.Flags().StringVarP(&configPath, "config", "c", "", "config file (default: .modellint.yaml found upward from PATH)")
	return cmd
}

// effectiveYAML is the config a run uses, defaults filled in, as YAML; a
// setting with nothing set under it (model: with no maxSize) is left out.
func effectiveYAML(config *lint.Config) ([]byte, error) {
	data, err := yaml.Marshal(config.Effective())
	if err != nil {
		return nil, err
	}
	var settings map[string]any
	if err := yaml.Unmarshal(data, &settings); err != nil {
		return nil, err
	}
	for key, value := range settings {
		if mapping, ok := value.(map[string]any); ok && len(mapping) == 0 {
			delete(settings, key)
		}
	}
	return yaml.Marshal(settings)
}

func noArgs(name string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("%s takes no arguments", name)
		}
		return nil
	}
}
