package gpu

import (
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// instanceGPUCounts are the accelerators of one node of a cloud instance type,
// where the name does not say it: AWS
// (https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing) and
// Azure (https://learn.microsoft.com/azure/virtual-machines/sizes/overview#gpu-accelerated),
// the SKUs KAITO provisions among them (pkg/sku in kaito-project/kaito).
// GCP's accelerator-optimized names end in the count ("a2-highgpu-4g").
var instanceGPUCounts = map[string]int{
	"g4dn.xlarge": 1, "g4dn.2xlarge": 1, "g4dn.4xlarge": 1, "g4dn.8xlarge": 1, "g4dn.16xlarge": 1,
	"g4dn.12xlarge": 4, "g4dn.metal": 8,
	"g5.xlarge": 1, "g5.2xlarge": 1, "g5.4xlarge": 1, "g5.8xlarge": 1, "g5.16xlarge": 1,
	"g5.12xlarge": 4, "g5.24xlarge": 4, "g5.48xlarge": 8,
	"g6.xlarge": 1, "g6.2xlarge": 1, "g6.4xlarge": 1, "g6.8xlarge": 1, "g6.16xlarge": 1,
	"gr6.4xlarge": 1, "gr6.8xlarge": 1, "g6.12xlarge": 4, "g6.24xlarge": 4, "g6.48xlarge": 8,
	"g6e.xlarge": 1, "g6e.2xlarge": 1, "g6e.4xlarge": 1, "g6e.8xlarge": 1, "g6e.16xlarge": 1,
	"g6e.12xlarge": 4, "g6e.24xlarge": 4, "g6e.48xlarge": 8,
	"p3.2xlarge": 1, "p3.8xlarge": 4, "p3.16xlarge": 8, "p3dn.24xlarge": 8,
	"p4d.24xlarge": 8, "p4de.24xlarge": 8, "p5.48xlarge": 8, "p5e.48xlarge": 8, "p5en.48xlarge": 8,
	"p6-b200.48xlarge": 8, "dl1.24xlarge": 8,
	"g4ad.xlarge": 1, "g4ad.2xlarge": 1, "g4ad.4xlarge": 1, "g4ad.8xlarge": 2, "g4ad.16xlarge": 4,
	"standard_nc4as_t4_v3": 1, "standard_nc8as_t4_v3": 1, "standard_nc16as_t4_v3": 1, "standard_nc64as_t4_v3": 4,
	"standard_nc6s_v3": 1, "standard_nc12s_v3": 2, "standard_nc24s_v3": 4, "standard_nc24rs_v3": 4,
	"standard_nv36ads_a10_v5": 1, "standard_nv36adms_a10_v5": 1, "standard_nv72ads_a10_v5": 2,
	"standard_nc24ads_a100_v4": 1, "standard_nc48ads_a100_v4": 2, "standard_nc96ads_a100_v4": 4,
	"standard_nd40rs_v2": 8, "standard_nd96asr_v4": 8, "standard_nd96amsr_a100_v4": 8,
	"standard_nc40ads_h100_v5": 1, "standard_nc80adis_h100_v5": 2, "standard_ncc40ads_h100_v5": 1,
	"standard_nd96isr_h100_v5": 8, "standard_nd96isr_h200_v5": 8, "standard_nd96isr_mi300x_v5": 8,
	// GCP's G2 names its vCPUs, not its L4s.
	"g2-standard-4": 1, "g2-standard-8": 1, "g2-standard-12": 1, "g2-standard-16": 1, "g2-standard-32": 1,
	"g2-standard-24": 2, "g2-standard-48": 4, "g2-standard-96": 8,
}

var gcpGPUCount = lazyregexp.New(`^a[234]-[a-z]+gpu-(\d+)g$`)

// Instance returns the accelerator of a cloud instance type, NVIDIA's or
// another's, and how many of it one node has; ok is false when the table
// does not know the type or the count.
func Instance(instanceType string) (gpu GPU, count int, ok bool) {
	gpu, ok = ForLabel(LabelInstanceType, instanceType)
	for _, instance := range otherInstanceTypes {
		if !ok && instance.pattern.MatchString(instanceType) {
			gpu, ok = instance.gpu, true
		}
	}
	if !ok {
		return GPU{}, 0, false
	}
	name := strings.ToLower(instanceType)
	if count, known := instanceGPUCounts[name]; known {
		return gpu, count, true
	}
	if match := gcpGPUCount.FindStringSubmatch(name); match != nil {
		if count, err := strconv.Atoi(match[1]); err == nil && count > 0 {
			return gpu, count, true
		}
	}
	return GPU{}, 0, false
}
