"""Splitting a projection into heads and putting the heads' outputs back side by side."""

from array_api_compat import array_namespace


def split_heads(M, n_heads: int):
    """[..., n, h·d] -> [..., h, n, d]: head h takes columns h·d:(h+1)·d."""
    xp = array_namespace(M)
    *lead, n, width = M.shape
    M = xp.reshape(M, (*lead, n, n_heads, width // n_heads))  # [..., n, h, d]
    return xp.permute_dims(M, (*range(len(lead)), len(lead) + 1, len(lead), len(lead) + 2))


def merge_heads(M):
    """[..., h, n, d] -> [..., n, h·d]: the heads side by side, head 0 first (inverse of split)."""
    xp = array_namespace(M)
    *lead, h, n, d = M.shape
    M = xp.permute_dims(M, (*range(len(lead)), len(lead) + 1, len(lead), len(lead) + 2))
    return xp.reshape(M, (*lead, n, h * d))  # [..., n, h·d]
