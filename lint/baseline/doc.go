// Package baseline records the findings a deployment has today, so that CI
// fails only on new ones: known findings are marked as suppressed (kind
// "baseline") and findings that were fixed simply drop out of the file.
package baseline
