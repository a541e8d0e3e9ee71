"""The layers of ember.nn, one family per file as in torch.nn.modules."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear
from .activation import (ReLU, LeakyReLU, GELU, Tanh, Sigmoid, SiLU, ReLU6, Hardtanh, Softmax,
                         Softmin, LogSoftmax)
from .conv import Conv2d
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm, LocalResponseNorm
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d, AlphaDropout, FeatureAlphaDropout
from .sparse import Embedding, EmbeddingBag
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .channelshuffle import ChannelShuffle
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .fold import Fold, Unfold
from .lazy import (LazyLinear, LazyConv1d, LazyConv2d, LazyConvTranspose1d, LazyConvTranspose2d,
                   LazyBatchNorm1d, LazyBatchNorm2d, LazyInstanceNorm1d, LazyInstanceNorm2d,
                   LazyInstanceNorm3d)
from .flatten import Flatten, Unflatten
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .loss import L1Loss, MSELoss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss
from .activation_attention import MultiheadAttention
from .transformer import (Transformer, TransformerEncoder, TransformerDecoder,
                          TransformerEncoderLayer, TransformerDecoderLayer)
from .group_rms_norm import GroupNorm, RMSNorm
from .padding import (ZeroPad1d, ZeroPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d,
                      ReflectionPad2d, ReplicationPad1d, ReplicationPad2d, CircularPad1d,
                      CircularPad2d, ZeroPad3d, ConstantPad3d, ReflectionPad3d,
                      ReplicationPad3d, CircularPad3d)
from .conv import Conv1d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d
from .pooling import MaxPool1d, AvgPool1d
from .pooling_adaptive import AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d
from .pooling_3d import MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d
from .unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d
from .lp_pooling import LPPool1d, LPPool2d, LPPool3d
from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d
from .conv import Conv3d
from .conv_transpose import ConvTranspose3d
from .normalization import BatchNorm3d
from .lazy import LazyConv3d, LazyConvTranspose3d, LazyBatchNorm3d
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d
from .activation_pointwise import (Softplus, ELU, SELU, CELU, Mish, Hardswish, Hardsigmoid,
                                   LogSigmoid, Softsign, Tanhshrink, Hardshrink, Softshrink,
                                   Threshold, GLU, PReLU)
from .distance import CosineSimilarity, PairwiseDistance
from .loss_regression import (SmoothL1Loss, HuberLoss, KLDivLoss, PoissonNLLLoss,
                              GaussianNLLLoss)
from .loss_margin import (SoftMarginLoss, MarginRankingLoss, HingeEmbeddingLoss,
                          CosineEmbeddingLoss, MultiMarginLoss, MultiLabelMarginLoss,
                          MultiLabelSoftMarginLoss, TripletMarginLoss,
                          TripletMarginWithDistanceLoss, NLLLoss2d)
from .loss_ctc import CTCLoss
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .linear_cross_entropy import LinearCrossEntropyLoss
from .linear import Bilinear
from .container import Container
from .activation_pointwise import RReLU
from .activation import Softmax2d
from .normalization import CrossMapLRN2d
from .sync_batchnorm import SyncBatchNorm
from .adaptive import AdaptiveLogSoftmaxWithLoss

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "ReLU", "LeakyReLU", "GELU", "Tanh", "Sigmoid", "SiLU", "ReLU6",
    "Hardtanh", "Softmax", "Softmin", "LogSoftmax", "Conv2d", "MaxPool2d", "AvgPool2d",
    "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Dropout", "Embedding",
    "Flatten", "Unflatten", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
    "BCEWithLogitsLoss",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
]
__all__ += ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
            "TransformerEncoderLayer", "TransformerDecoderLayer", "GroupNorm", "RMSNorm"]
__all__ += ["ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
            "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
            "CircularPad2d", "Conv1d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d",
            "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
            "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
__all__ += ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d",
            "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d", "LPPool3d",
            "FractionalMaxPool2d", "FractionalMaxPool3d", "Conv3d", "ConvTranspose3d",
            "BatchNorm3d", "LazyConv3d", "LazyConvTranspose3d", "LazyBatchNorm3d"]
__all__ += ["Softplus", "ELU", "SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "LogSigmoid",
            "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "Threshold", "GLU", "PReLU",
            "CosineSimilarity", "PairwiseDistance", "SmoothL1Loss", "HuberLoss", "KLDivLoss",
            "SoftMarginLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
            "PoissonNLLLoss", "GaussianNLLLoss"]
__all__ += ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
__all__ += ["LocalResponseNorm", "EmbeddingBag", "PixelShuffle", "PixelUnshuffle",
            "ChannelShuffle", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
__all__ += ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d", "LazyConvTranspose2d",
            "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
            "LazyInstanceNorm3d"]
__all__ += ["Fold", "Unfold"]
__all__ += ["ZeroPad3d", "ConstantPad3d", "ReflectionPad3d", "ReplicationPad3d",
            "CircularPad3d"]
__all__ += ["MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss",
            "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss", "NLLLoss2d",
            "LinearCrossEntropyOptions", "LinearCrossEntropyLoss", "Bilinear", "Container",
            "RReLU", "Softmax2d", "CrossMapLRN2d", "SyncBatchNorm", "AdaptiveLogSoftmaxWithLoss"]
