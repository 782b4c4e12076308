import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "RAW").as_numpy()
            image = np.zeros((raw.shape[0], 3, 224, 224), dtype=np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("IMAGE", image)]))
        return responses
