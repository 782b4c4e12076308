package server

// What a runtime does that rules judge, besides how it is recognised and
// told its model: its health paths, its gRPC port, its use of GPU memory.

// ProbeHint is the probe a runtime answers: an httpGet path, or a
// tcpSocket on a port when Path is empty.
type ProbeHint struct {
	// Path is the httpGet path; ModelNamePlaceholder in it stands for the
	// model's name.
	Path string
	// PortFlag sets the probe's port, Port when it is not given; without
	// either, the first port the server listens on.
	PortFlag string
	Port     int32
}

// ModelNamePlaceholder stands for the model's name in a ProbeHint's Path.
const ModelNamePlaceholder = "{model}"

// GRPCPort is the gRPC port of a runtime that serves HTTP on another.
type GRPCPort struct {
	Flag   string
	Number int32
	// HTTPFlag and HTTPNumber are the HTTP port's.
	HTTPFlag   string
	HTTPNumber int32
}

// LinkedVariable is an env var a runtime reads that a Kubernetes Service
// link (<SERVICE>_PORT=tcp://…) can set, and what the runtime then does.
type LinkedVariable struct {
	Name   string
	Effect string
}

// GPUMemory is how a server is told its parallelism, memory share,
// precision and context length on GPUs.
type GPUMemory struct {
	TensorParallel, PipelineParallel Setting
	// ShardsOverAllGPUs says the server splits the model over every GPU it
	// sees when no degree is set (TGI, NIM, llama.cpp).
	ShardsOverAllGPUs bool
	// Sharding says the server runs one worker process per GPU of a split
	// model, whose NCCL traffic goes through /dev/shm.
	Sharding        bool
	Fraction        Setting
	DefaultFraction float64
	// AllWeightsOnGPU says that with a GPU every weight is loaded onto it:
	// host memory holds none of the model.
	AllWeightsOnGPU bool
	// CastsFloat32 says the server loads a float32 checkpoint as 16-bit
	// unless --dtype says otherwise.
	CastsFloat32                      bool
	Dtype, Quantization, KVCacheDtype Setting
	ContextLength                     Setting
	// ContextFromModel says the context length defaults to the model's
	// max_position_embeddings (a GGUF's context_length).
	ContextFromModel bool
	// ContextZeroIsModel says a context length of 0 means the model's.
	ContextZeroIsModel bool
	// KVFailure is what the server does when one sequence does not fit.
	KVFailure string
	// GPULayers is llama.cpp's layer count on the GPU: unless it is all of
	// them, the rest stay in host memory and nothing fails.
	GPULayers Setting
	// CPUOffload moves this many GiB of each GPU's weights to host memory.
	CPUOffload Setting
	// SmallerKVCache is the 8-bit value of KVCacheDtype; "" is fp8.
	SmallerKVCache string
}

// HostMemory is what a server serving from the CPU holds in host memory
// besides the bytes of its weights: a KV cache, and the weights themselves
// either as page cache of a memory-mapped file, which the kernel reclaims
// when the container reaches its memory limit, or read into the process's
// own memory, which it cannot reclaim.
type HostMemory struct {
	// ContextLength is the KV cache's tokens, shared by every slot
	// (llama.cpp -c); 0 means the model's context_length. CacheTypeK and
	// CacheTypeV are its ggml types, F16 when unset.
	ContextLength, CacheTypeK, CacheTypeV Setting
	// Parallel is the number of slots the context is shared by.
	Parallel Setting
	// KVClearedAtStart says the server writes the whole KV cache when it
	// starts, so that all of it is resident before the first request.
	KVClearedAtStart bool
	// MapsWeights says the weights are memory-mapped unless a switch of
	// NoMmap (against Mmap, the last given wins) or the env vars turn it off:
	// NoMmapEnv set to a true value, or MmapEnv to a false one.
	MapsWeights        bool
	NoMmap, Mmap       []string
	NoMmapEnv, MmapEnv string
	// Repacks are the ggml types of weight matrices that the CPU backend
	// copies out of the mapped file into buffers of its own, in the layout
	// of the CPU's vector instructions (AVX2, AVX-512, NEON), unless a
	// switch of NoRepack (against Repack) or the env vars turn it off.
	Repacks                []string
	Repack, NoRepack       []string
	NoRepackEnv, RepackEnv string
	// KVCacheGiB is a KV cache of a fixed size in GiB (vLLM's
	// VLLM_CPU_KVCACHE_SPACE), DefaultKVCacheGiB when it is unset or 0.
	KVCacheGiB        Setting
	DefaultKVCacheGiB float64
}

// Listen says which address a server binds its HTTP port to.
type Listen struct {
	// Host sets the address; HostPort says its value is host:port
	// (OLLAMA_HOST).
	Host     Setting
	HostPort bool
	// Default is the address when nothing sets it.
	Default string
	// ImageHost is the address the project's own images set in their env
	// (the server's Images), known without reading the image.
	ImageHost string
}
