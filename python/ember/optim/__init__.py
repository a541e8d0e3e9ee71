"""ember.optim: optimizers with torch.optim's API and update rules. Each step() updates all
the parameters of a param group in one fused C++ call (see optimizer.py)."""
from . import lr_scheduler
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
