"""The layers of ember.nn, one family per file as in torch.nn.modules."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear
from .activation import (ReLU, LeakyReLU, GELU, Tanh, Sigmoid, SiLU, ReLU6, Hardtanh, Softmax,
                         Softmin, LogSoftmax)
from .conv import Conv2d
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .dropout import Dropout
from .sparse import Embedding
from .flatten import Flatten, Unflatten
from .loss import L1Loss, MSELoss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "ReLU", "LeakyReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "ReLU6",
    "Hardtanh", "Softmax", "Softmin", "LogSoftmax", "Conv2d", "MaxPool2d", "AvgPool2d",
    "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Dropout", "Embedding",
    "Flatten", "Unflatten", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
    "BCEWithLogitsLoss",
]
