import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            scores = pb_utils.get_input_tensor_by_name(request, "SCORES").as_numpy()
            label = np.array([str(scores.argmax()).encode()], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("LABEL", label)]))
        return responses
