import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "RAW_IN").as_numpy()
            a = np.resize(raw.astype(np.int32), (raw.shape[0], 16))
            responses.append(pb_utils.InferenceResponse(
                [pb_utils.Tensor("A", a), pb_utils.Tensor("B", a[:, ::-1].copy())]))
        return responses
