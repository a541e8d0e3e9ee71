"""ember.optim: optimizers with torch.optim's API and update rules. Each step() updates all
the parameters of a param group in one fused C++ call (see optimizer.py); Adamax, NAdam, RAdam,
Adadelta, Rprop, ASGD and LBFGS are Python over ember's in-place ops (_single_tensor.py)."""
from . import lr_scheduler, swa_utils
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .adadelta import Adadelta
from .rprop import Rprop
from .asgd import ASGD
from .lbfgs import LBFGS
from .adafactor import Adafactor
from .muon import Muon
from .sparse_adam import SparseAdam
from ._stateless import swap_in_optimizer_params_and_state

__all__ = ["Optimizer", "SGD", "swa_utils", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler",
           "Adamax", "NAdam", "RAdam", "Adadelta", "Rprop", "ASGD", "LBFGS", "Adafactor", "Muon",
           "SparseAdam",
           "swap_in_optimizer_params_and_state"]
