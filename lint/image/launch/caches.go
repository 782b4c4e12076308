package launch

import (
	"path"
	"slices"
)

// HubCache is where the Hugging Face libraries (huggingface_hub, and so
// transformers, vLLM and SGLang) keep downloads in this process:
// HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE, else HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub
// (huggingface_hub/constants.py). from names the variable that decided
// it, or "HOME" when the default under HOME did; ok is false when that
// depends on a HOME that is not known (the image was not read).
func (p *Process) HubCache() (dir, from string, ok bool) {
	if value, set := p.setValue("HF_HUB_CACHE"); set {
		return p.ExpandHome(value), "HF_HUB_CACHE", p.known(value)
	}
	if value, set := p.setValue("HUGGINGFACE_HUB_CACHE"); set {
		return p.ExpandHome(value), "HUGGINGFACE_HUB_CACHE", p.known(value)
	}
	if value, set := p.setValue("HF_HOME"); set {
		return path.Join(p.ExpandHome(value), "hub"), "HF_HOME", p.known(value)
	}
	root, from, ok := p.cacheRoot()
	return path.Join(root, "huggingface", "hub"), from, ok
}

// VLLMCacheRoot is where vLLM keeps its torch.compile cache and other
// files: VLLM_CACHE_ROOT, else $XDG_CACHE_HOME/vllm, else ~/.cache/vllm
// (vllm/envs.py).
func (p *Process) VLLMCacheRoot() (dir, from string, ok bool) {
	if value, set := p.setValue("VLLM_CACHE_ROOT"); set {
		return p.ExpandHome(value), "VLLM_CACHE_ROOT", p.known(value)
	}
	root, from, ok := p.cacheRoot()
	return path.Join(root, "vllm"), from, ok
}

// OllamaModels is where `ollama serve` keeps its models: OLLAMA_MODELS,
// else $HOME/.ollama/models (envconfig/config.go, Models; HOME through
// os.UserHomeDir). ok is false when that is not settled: a value the
// cluster fills in, a relative one, or an unknown HOME.
func (p *Process) OllamaModels() (dir, from string, ok bool) {
	if value, set := p.setValue("OLLAMA_MODELS"); set {
		return value, "OLLAMA_MODELS", path.IsAbs(value)
	}
	return path.Join(p.Home, ".ollama", "models"), "HOME", p.Home != ""
}

// cacheRoot is $XDG_CACHE_HOME, else ~/.cache.
func (p *Process) cacheRoot() (string, string, bool) {
	if value, set := p.setValue("XDG_CACHE_HOME"); set {
		return p.ExpandHome(value), "XDG_CACHE_HOME", p.known(value)
	}
	return path.Join(p.Home, ".cache"), "HOME", p.Home != ""
}

// setValue is a variable's value when it is set; a variable the cluster
// fills in is set to a value not known here ("").
func (p *Process) setValue(name string) (string, bool) {
	if slices.Contains(p.Defined, name) {
		return "", true
	}
	value, ok := p.Getenv(name)
	return value, ok && value != ""
}

// known says a directory value is settled: absolute, or under a known
// HOME.
func (p *Process) known(value string) bool {
	if len(value) > 0 && value[0] == '/' {
		return true
	}
	return p.Home != "" && (value == "~" || len(value) > 1 && value[:2] == "~/")
}
