"""utils.data's DataPipes (python/ember/utils/data/datapipes, graph.py, graph_settings.py)
against torch 2.13: every iterable and map pipe and its chained method, lengths, the
one-live-iterator rule, seeded shuffles (the same Python random stream as torch), graphs,
sharding and shuffle settings, the decorators and switches, and DataLoader with pipes (shuffle
on/off, seeds per epoch, workers reading disjoint shards); bad inputs."""
import typing
import warnings

import pytest
import torch
import torch.utils.data as TD

import ember
import ember.utils.data as ED

warnings.filterwarnings("ignore", message="Lambda function is not supported by pickle")


def _lists(e, t):
    assert list(e) == list(t)


def _wrap(lib, data):
    return lib.datapipes.iter.IterableWrapper(data)


def _double(x):
    return x * 2


def _is_even(x):
    return x % 2 == 0


def _mod3(x):
    return x % 3


PIPELINES = [  # f(D, source) -> pipe, compared item by item with torch's
    lambda D, s: s.map(_double),
    lambda D, s: s.filter(_is_even),
    lambda D, s: s.batch(4),
    lambda D, s: s.batch(4, drop_last=True).unbatch(),
    lambda D, s: s.batch(3).batch(2).unbatch(unbatch_level=2),
    lambda D, s: s.batch(3).batch(2).unbatch(unbatch_level=-1),
    lambda D, s: s.zip(_wrap(D, "abcdefg")),
    lambda D, s: s.concat(_wrap(D, [100, 101])),
    lambda D, s: s.mux(_wrap(D, "abc")),
    lambda D, s: s.shuffle().set_seed(7),
    lambda D, s: s.shuffle(buffer_size=3).set_seed(11),
    lambda D, s: s.groupby(_mod3, group_size=2),
    lambda D, s: s.groupby(_mod3, keep_key=True),
    lambda D, s: s.map(_double).sharding_filter(),
    lambda D, s: D.datapipes.iter.Sampler(s),
]


@pytest.mark.parametrize("i", range(len(PIPELINES)))
def test_iter_pipelines(i):
    build = PIPELINES[i]
    e = build(ED, _wrap(ED, range(10)))
    t = build(TD, _wrap(TD, range(10)))
    _lists(e, t)
    if i not in (9, 10):  # set_seed seeds one pass; later passes draw from each library's RNG
        _lists(e, t)
    try:
        n = len(t)
    except TypeError:
        with pytest.raises(TypeError):
            len(e)
    else:
        assert len(e) == n


def test_map_columns_and_collate():
    rows = [(1, 2), (3, 4)]
    for kw in (dict(input_col=0), dict(input_col=0, output_col=-1), dict(input_col=1, output_col=0)):
        _lists(_wrap(ED, rows).map(_double, **kw), _wrap(TD, rows).map(_double, **kw))
    _lists(_wrap(ED, rows).map(lambda a, b: a + b, input_col=[0, 1]),
           _wrap(TD, rows).map(lambda a, b: a + b, input_col=[0, 1]))
    dicts = [{"a": 1}, {"a": 2}]
    _lists(_wrap(ED, dicts).map(_double, input_col="a", output_col="b"),
           _wrap(TD, dicts).map(_double, input_col="a", output_col="b"))
    _lists(_wrap(ED, rows).filter(lambda v: v > 2, input_col=0),
           _wrap(TD, rows).filter(lambda v: v > 2, input_col=0))
    e = list(_wrap(ED, [[1, 2], [3, 4]]).collate())
    t = list(_wrap(TD, [[1, 2], [3, 4]]).collate())
    assert [x.tolist() for x in e] == [x.tolist() for x in t]
    assert list(_wrap(ED, [[1, 2]]).collate(collate_fn=sum)) == [3]
    with pytest.raises(ValueError, match="`output_col` must be None when `input_col` is None"):
        _wrap(ED, rows).map(_double, output_col=1)
    with pytest.raises(ValueError, match="Boolean output is required"):
        list(_wrap(ED, [1, 2]).filter(lambda x: x))


def test_fork_demux():
    for lib in (ED, TD):
        a, b = _wrap(lib, range(6)).fork(2)
        assert list(a) == list(range(6)) and list(b) == list(range(6))
        a, b = _wrap(lib, range(6)).fork(2)
        assert list(zip(a, b)) == [(i, i) for i in range(6)]
        even, odd = _wrap(lib, range(7)).demux(2, lambda x: x % 2)
        assert list(even) == [0, 2, 4, 6] and list(odd) == [1, 3, 5]
        x, y = _wrap(lib, range(5)).demux(2, lambda v: None if v == 2 else v % 2, drop_none=True)
        assert list(x) == [0, 4] and list(y) == [1, 3]
        assert _wrap(lib, range(3)).fork(1) is not None
    a, b = _wrap(ED, range(10)).fork(2, buffer_size=2)
    with pytest.raises(BufferError):
        list(a)
    bad, _ = _wrap(ED, range(3)).demux(2, lambda v: 5)
    with pytest.raises(ValueError, match="between 0 and 1. 5 is returned"):
        list(bad)


def test_one_live_iterator_per_pipe():
    for lib in (ED, TD):
        dp = _wrap(lib, range(5))
        it1 = iter(dp)
        assert next(it1) == 0
        it2 = iter(dp)
        assert next(it1) == 1  # it2 has not started
        assert next(it2) == 0
        with pytest.raises(RuntimeError, match="This iterator has been invalidated"):
            next(it1)
        with pytest.raises(RuntimeError, match="This iterator has been invalidated"):
            list(dp.zip(dp))


def test_map_pipes():
    for build in (lambda D, s: s.map(_double), lambda D, s: s.batch(2),
                  lambda D, s: s.batch(2, drop_last=True),
                  lambda D, s: s.zip(D.datapipes.map.SequenceWrapper("abcd")),
                  lambda D, s: s.concat(D.datapipes.map.SequenceWrapper([9]))):
        e = build(ED, ED.datapipes.map.SequenceWrapper(range(5)))
        t = build(TD, TD.datapipes.map.SequenceWrapper(range(5)))
        assert len(e) == len(t)
        assert [e[i] for i in range(len(e))] == [t[i] for i in range(len(t))]
    e = ED.datapipes.map.SequenceWrapper(range(8)).shuffle().set_seed(5)
    t = TD.datapipes.map.SequenceWrapper(range(8)).shuffle().set_seed(5)
    assert isinstance(e, ED.IterDataPipe) and list(e) == list(t)
    with pytest.raises(IndexError):
        ED.datapipes.map.SequenceWrapper(range(5)).batch(2)[3]


def test_datachunk_and_types():
    c = ED.DataChunk([1, 2, 3])
    t = TD.DataChunk([1, 2, 3])
    assert repr(c) == repr(t) and c.as_str() == t.as_str() and list(c.raw_iterator()) == [1, 2, 3]
    assert isinstance(c, list)

    class Ints(ED.IterDataPipe[int]):
        def __init__(self, items):
            self.items = items

        @ED.runtime_validation
        def __iter__(self):
            yield from self.items

    assert Ints.type.param is int and ED.IterDataPipe.type.param is typing.Any
    assert list(Ints([1, 2])) == [1, 2]
    with pytest.raises(RuntimeError, match="Expected an instance as subtype of int, but found a"):
        list(Ints([1, "a"]))
    with ED.runtime_validation_disabled():
        assert list(Ints([1, "a"])) == [1, "a"]
    def f(self):
        yield 1
    with pytest.raises(TypeError, match="Can not decorate function f with 'runtime_validation'"):
        ED.runtime_validation(f)

    @ED.argument_validation
    def consume(dp: ED.IterDataPipe[int]):
        return list(dp)

    assert consume(Ints([3])) == [3]
    with pytest.raises(TypeError, match="Expected argument 'dp' as a IterDataPipe"):
        consume([1])

    class Strs(ED.IterDataPipe[str]):
        def __iter__(self):
            yield "s"
    with pytest.raises(TypeError, match="Expected type of argument 'dp' as a subtype of hint int"):
        consume(Strs())
    df = ED.DFIterDataPipe()
    assert df._is_dfpipe()


def test_functional_datapipe_and_determinism():
    @ED.functional_datapipe("ember_test_repeat")
    class Repeat(ED.IterDataPipe):
        def __init__(self, dp, times):
            self.dp, self.times = dp, times

        def __iter__(self):
            for x in self.dp:
                for _ in range(self.times):
                    yield x

    assert list(_wrap(ED, [1, 2]).ember_test_repeat(2)) == [1, 1, 2, 2]
    assert "ember_test_repeat" in dir(_wrap(ED, [1]))
    with pytest.raises(Exception, match="already taken"):
        ED.functional_datapipe("ember_test_repeat")(Repeat)
    with pytest.raises(TypeError, match="can only decorate"):
        ED.functional_datapipe("x")(int)
    with pytest.raises(AttributeError):
        _wrap(ED, [1]).no_such_step

    @ED.non_deterministic
    class Random(ED.IterDataPipe):
        def __iter__(self):
            yield 1

    assert list(Random()) == [1]
    with ED.guaranteed_datapipes_determinism():
        with pytest.raises(TypeError, match="Random is non-deterministic, but you set "
                                            "'guaranteed_datapipes_determinism'"):
            Random()
    assert list(Random()) == [1]

    class Maybe(ED.IterDataPipe):
        def __init__(self, flag):
            self.flag = flag

        def __iter__(self):
            yield self.flag
    Maybe = ED.non_deterministic(lambda flag: flag)(Maybe)
    with ED.guaranteed_datapipes_determinism():
        assert list(Maybe(False)) == [False]
        with pytest.raises(TypeError, match="non-deterministic with the inputs"):
            Maybe(True)
    with pytest.raises(TypeError, match="Only `IterDataPipe` can be decorated"):
        ED.non_deterministic(int)


def test_graph_and_settings():
    e = _wrap(ED, range(10)).map(_double).shuffle().sharding_filter().batch(2)
    graph = ED.graph.traverse_dps(e)
    pipes = ED.graph_settings.get_all_graph_pipes(graph)
    assert [type(p).__name__ for p in pipes] == ["Batcher", "ShardingFilter", "Shuffler",
                                                 "Mapper", "IterableWrapper"]
    t = _wrap(TD, range(10)).map(_double).shuffle().sharding_filter().batch(2)
    assert len(TD.graph_settings.get_all_graph_pipes(TD.graph.traverse_dps(t))) == len(pipes)
    for lib, dp in ((ED, e), (TD, t)):
        lib.graph_settings.apply_shuffle_settings(dp, shuffle=False)
        lib.graph_settings.apply_sharding(dp, 2, 1)
    _lists(e, t)
    a, b = _wrap(ED, range(4)).fork(2)
    assert len(ED.graph_settings.get_all_graph_pipes(ED.graph.traverse_dps(a.zip(b)))) == 5
    twice = _wrap(ED, range(4)).sharding_filter().sharding_filter()
    with pytest.raises(RuntimeError, match="Sharding twice on a single pipeline"):
        ED.graph_settings.apply_sharding(twice, 2, 0)
    with pytest.raises(ValueError, match="instance_id\\(2\\) should be smaller"):
        ED.graph_settings.apply_sharding(_wrap(ED, [1]).sharding_filter(), 2, 2)
    with pytest.raises(RuntimeError, match="Expected `IterDataPipe` or `MapDataPipe`"):
        ED.graph.traverse_dps([1, 2])
    seeded = _wrap(ED, range(20)).shuffle()
    ED.graph_settings.apply_random_seed(seeded, ember.Generator().manual_seed(3))
    first = list(seeded)
    ED.graph_settings.apply_random_seed(seeded, ember.Generator().manual_seed(3))
    assert list(seeded) == first and sorted(first) == list(range(20))


def test_dataloader_with_datapipes():
    dp = _wrap(ED, range(12)).shuffle().sharding_filter()
    assert [b.tolist() for b in ED.DataLoader(dp, batch_size=4, shuffle=False)] == \
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    loader = ED.DataLoader(dp, batch_size=4, shuffle=True, generator=ember.Generator().manual_seed(1))
    epoch1 = [x for b in loader for x in b.tolist()]
    epoch2 = [x for b in loader for x in b.tolist()]
    assert sorted(epoch1) == sorted(epoch2) == list(range(12)) and epoch1 != list(range(12))
    again = ED.DataLoader(dp, batch_size=4, generator=ember.Generator().manual_seed(1))
    assert [x for b in again for x in b.tolist()] == epoch1  # the same seed, the same order
    # two workers each read their own shard; together every item once
    loader = ED.DataLoader(_wrap(ED, range(10)).shuffle().sharding_filter(), batch_size=None,
                           num_workers=2, generator=ember.Generator().manual_seed(2))
    got = [int(x) for x in loader]
    assert sorted(got) == list(range(10))
    with pytest.warns(UserWarning, match="does not contain a `Shuffler`"):
        ED.DataLoader(_wrap(ED, range(3)), shuffle=True)
    with pytest.raises(AssertionError, match="Batch size is required to be larger than 0"):
        _wrap(ED, range(3)).batch(0)
    with pytest.raises(TypeError, match="Expected all inputs to be `IterDataPipe`"):
        _wrap(ED, range(3)).zip([1, 2])
    with pytest.raises(ValueError, match="Expected at least one DataPipe"):
        ED.datapipes.iter.Concater()
    with pytest.raises(IndexError, match="unbatch_level 2 exceeds the depth"):
        list(_wrap(ED, [[1], [2]]).unbatch(unbatch_level=2))


@pytest.mark.parametrize("wrap", ["iter", "map"])
def test_shuffler_without_a_seed_draws_one_from_embers_generator(wrap):
    # No set_seed and no DataLoader: the seed comes from ember's global RNG (it used to
    # raise ModuleNotFoundError), so manual_seed reproduces the order, as torch's does.
    def order():
        if wrap == "iter":
            dp = ED.datapipes.iter.IterableWrapper(range(20)).shuffle()
        else:
            dp = ED.datapipes.map.SequenceWrapper(range(20)).shuffle()
        return list(dp)

    ember.manual_seed(3)
    first = order()
    ember.manual_seed(3)
    assert order() == first
    assert sorted(first) == list(range(20)) and first != list(range(20))
    assert order() != first  # a new draw per iteration
