"""The model of the local-code example: a small classifier of 28x28 images."""

import torch.nn as nn


class Net(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Flatten(),
            nn.Linear(28 * 28, 128),
            nn.ReLU(),
            nn.Linear(128, classes),
        )

    def forward(self, x):
        return self.layers(x)
