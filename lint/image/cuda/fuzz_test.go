package cuda

import "testing"

func FuzzSatisfied(f *testing.F) {
	f.Add("cuda>=12.2 brand=tesla,driver>=470,driver<471", "535.104.05")
	f.Add("cuda>=11.0 arch=sm_80,driver!=450", "450.80.02")
	f.Add(",,, =>", "")
	f.Fuzz(func(t *testing.T, require, driver string) {
		version, ok := ParseVersion(driver)
		if !ok {
			return
		}
		Satisfied(require, version, "")
		FromEnv([]string{"NVIDIA_REQUIRE_CUDA=" + require, "CUDA_VERSION=" + driver}, nil)
		FromVersionJSON([]byte(require))
	})
}
