package cuda

import "testing"

func TestSatisfied(t *testing.T) {
	require := "cuda>=12.2 brand=tesla,driver>=470,driver<471 brand=tesla,driver>=525,driver<526"
	for _, c := range []struct {
		driver, brand string
		want          bool
	}{
		{"535.104.05", "", true}, // supports CUDA 12.2
		{"530.30.02", "", false}, // CUDA 12.1, and no data-center branch matches
		{"525.60.13", "tesla", true},
		{"525.60.13", "geforce", false},
		{"470.82.01", "", true}, // brand unknown: the forward-compatibility branch may apply
		{"515.65.01", "", false},
	} {
		driver, _ := ParseVersion(c.driver)
		got, err := Satisfied(require, driver, c.brand)
		if err != nil || got != c.want {
			t.Errorf("driver %s brand %q: %v %v, want %v", c.driver, c.brand, got, err, c.want)
		}
	}
}

func TestDriverTable(t *testing.T) {
	for driver, want := range map[string]string{"535.104.05": "12.2", "525.60.13": "12.0", "580.65.06": "13.0", "470.42.01": "11.4"} {
		v, _ := ParseVersion(driver)
		if got, ok := DriverCUDA(v); !ok || got.String() != want {
			t.Errorf("driver %s: CUDA %v, want %s", driver, got, want)
		}
	}
	if driver, _ := MinimumDriver(Version{12, 4, 1}); driver.DriverString() != "550.54.14" {
		t.Errorf("12.4: %s", driver.DriverString())
	}
	if v, ok := FromVersionJSON([]byte(`{"cuda": {"name": "CUDA SDK", "version": "12.2.2"}}`)); !ok || v.String() != "12.2.2" {
		t.Errorf("version.json: %v", v)
	}
	if v, ok := FromVersionJSON([]byte("CUDA Version 10.1.243\n")); !ok || v.String() != "10.1.243" {
		t.Errorf("version.txt: %v", v)
	}
}
