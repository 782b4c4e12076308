import numpy as np


def normalize(x):
    return (x - x.mean()) / x.std()
