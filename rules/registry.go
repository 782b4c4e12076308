package rules

import "github.com/modellint/modellint/lint"

// registry is every rule, in ID order: the one list `rules`, `explain`,
// docs/rules.md, SARIF and JUnit come from. A new rule is one line here.
var registry = []*lint.Rule{
	suppressionReasonMissing, // MDL001
	manifestInvalid,          // MDL002
	suppressionExpired,       // MDL003

	versionDirMissing,       // MDL101
	savedModelMissing,       // MDL102
	variablesIncomplete,     // MDL103
	savedModelInvalid,       // MDL104
	servingSignatureMissing, // MDL105
	versionDirIgnored,       // MDL106
	modelTooLarge,           // MDL107
	lfsPointer,              // MDL108
	warmupInvalid,           // MDL109
	unsafeGraphOp,           // MDL110
	tritonLayout,            // MDL120
	tritonConfigMismatch,    // MDL121
	ovmsLayout,              // MDL122
	mlserverSettings,        // MDL123
	safetensorsInvalid,      // MDL130
	onnxExternalDataMissing, // MDL131
	onnxInvalid,             // MDL132
	unsafePickle,            // MDL140

	readinessProbeMissing,     // MDL201
	livenessChecksModel,       // MDL202
	startupProbeMissing,       // MDL203
	probePortUnknown,          // MDL204
	memoryLimitMissing,        // MDL205
	requestsMissing,           // MDL206
	rolloutUnsafe,             // MDL207
	imageTagMutable,           // MDL208
	configRefMissing,          // MDL209
	volumeMountUndefined,      // MDL210
	batchAsService,            // MDL211
	gpuRequestInvalid,         // MDL212
	ephemeralStorageUnbounded, // MDL213
	shmMissing,                // MDL214
	serviceEnvCollision,       // MDL215
	requestUnschedulable,      // MDL216
	nodeSelectorUnmatched,     // MDL217
	limitRangeViolated,        // MDL218
	resourceQuotaUnmet,        // MDL219
	downloadCacheMisplaced,    // MDL220
	modelUnschedulable,        // MDL221
	argvMalformed,             // MDL230

	entrypointNotFound,      // MDL301
	entrypointNotExecutable, // MDL302
	interpreterMissing,      // MDL303
	glibcTooOld,             // MDL304
	archMismatch,            // MDL305
	cudaDriverTooOld,        // MDL306
	shellFormArgsDropped,    // MDL307
	userInvalid,             // MDL308
	secretInImage,           // MDL309
	imageUnresolvable,       // MDL310
	imagePlatformMissing,    // MDL311
	serverNotForeground,     // MDL312
	appFileMissing,          // MDL320
	pythonModuleMissing,     // MDL321
	pythonImportMissing,     // MDL322

	memoryBelowModel,         // MDL401
	startupBudgetBelowLoad,   // MDL402
	modelPathMismatch,        // MDL403
	probeTargetMismatch,      // MDL404
	gpuImageMismatch,         // MDL405
	modelUnreadable,          // MDL406
	frameworkVersionMismatch, // MDL407
	gpuMemoryBelowWeights,    // MDL408
	ggufUnloadable,           // MDL409
	engineLimitsExceeded,     // MDL410
	mlserverRuntimeMissing,   // MDL411
	serverConfigInvalid,      // MDL412
	listenUnreachable,        // MDL413
}

// All returns every rule, in ID order. Callers may change the returned
// values (severity overrides): each call returns fresh copies.
func All() []*lint.Rule {
	all := make([]*lint.Rule, len(registry))
	for i, rule := range registry {
		copied := *rule
		all[i] = &copied
	}
	return all
}

// Lookup finds a rule by ID (case-insensitive) or name.
func Lookup(rules []*lint.Rule, idOrName string) *lint.Rule { return lint.FindRule(rules, idOrName) }
