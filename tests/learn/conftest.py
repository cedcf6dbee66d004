"""The learning tests run torch on one thread: the machine is shared, and two
threads fighting over one busy core are many times slower than one."""

from __future__ import annotations

import torch

torch.set_num_threads(1)
