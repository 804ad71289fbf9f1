#!/usr/bin/env python3
"""score.py HERE JSONDIR: score perflint JSON reports (one <repo>.json per repository) against judged.tsv,
misses.tsv and hand_read.txt in HERE. Called by score.sh; also usable on saved reports (runs/ = baseline)."""
import csv, json, os, sys, collections
here, out = sys.argv[1], sys.argv[2]
def tsv(name):
    p = os.path.join(here, name)
    if not os.path.exists(p): return []
    rows = list(csv.reader(open(p), delimiter='\t'))
    return [r for r in rows[1:] if r and not r[0].startswith('#')]
judged = collections.defaultdict(list)            # (repo,path,line,code) -> [judgement...]
for r in tsv('judged.tsv'): judged[(r[0], r[1], r[2], r[3])].append(r[4])
misses = [tuple(r[:4]) for r in tsv('misses.tsv')]
hand = set(l.split('\t')[0] + '\t' + l.split('\t')[1].strip() for l in open(os.path.join(here, 'hand_read.txt'))
           if l.strip() and not l.startswith('#'))
found = []
for f in sorted(os.listdir(out)):
    if not f.endswith('.json'): continue
    repo = f[:-5]
    d = json.load(open(os.path.join(out, f)))
    for x in d['findings']: found.append((repo, x['path'], str(x['line']), x['code'], x['message']))
stat = collections.defaultdict(collections.Counter)
unjudged = []
missset = collections.Counter(misses)
hand_tp = 0; hand_by = collections.Counter(); recovered = collections.Counter()
pool = {k: list(v) for k, v in judged.items()}
for repo, path, line, code, msg in found:
    k = (repo, path, line, code)
    if pool.get(k):
        v = pool[k].pop(0)
    elif missset[k] > recovered[k]:
        v = 'TP'; recovered[k] += 1           # a hand-found miss that is now reported
    else:
        v = 'unjudged'; unjudged.append((repo, path, line, code, msg))
    stat[code][v] += 1; stat['TOTAL'][v] += 1
    if v == 'TP' and (repo + '\t' + path) in hand: hand_tp += 1; hand_by[code] += 1
still = sum(missset.values()) - sum(recovered.values())
permiss = collections.Counter(m[3] for m in misses)
perrec = collections.Counter(k[3] for k in recovered.elements())
print(f'{"rule":8} {"TP":>4} {"FP":>4} {"deb":>4} {"unj":>4} {"precision":>9} {"hand:TP":>7} {"missing":>7} {"recall":>6}')
for code in sorted(set(c for c in stat if c != 'TOTAL') | set(permiss)) + ['TOTAL']:
    s = stat[code]; den = s['TP'] + s['FP']
    p = f'{s["TP"]/den:.3f}' if den else '-'
    ht = hand_tp if code == 'TOTAL' else hand_by[code]
    ms = still if code == 'TOTAL' else permiss[code] - perrec[code]
    rc = f'{ht/(ht+ms):.3f}' if ht + ms else '-'
    print(f'{code:8} {s["TP"]:4} {s["FP"]:4} {s["debatable"]:4} {s["unjudged"]:4} {p:>9} {ht:7} {ms:7} {rc:>6}')
print('precision = TP / (TP + FP); debatable findings are excluded; unjudged ones are not counted')
print('recall = hand:TP / (hand:TP + missing), on the files of hand_read.txt only (hand:TP = TPs found there)')
gone = sum(len(v) for v in pool.values())
print(f'judged findings no longer reported: {gone}')
for k, v in sorted(pool.items()):
    for j in v: print(f'  GONE {j:9} {k[0]} {k[1]}:{k[2]} {k[3]}')
print(f'recall on {len(hand)} hand-read files: found TPs {hand_tp}, misses still missing {still} '
      f'(of {len(misses)}; {sum(recovered.values())} now reported) -> '
      f'{hand_tp/(hand_tp+still):.3f}' if hand_tp + still else 'recall: -')
hs = collections.defaultdict(collections.Counter)
for repo, path, line, code, msg in found:
    pass
print('misses still missing by rule: ' + ', '.join(f'{c} {permiss[c]-perrec[c]}' for c in sorted(permiss)))
for u in unjudged: print('UNJUDGED\t' + '\t'.join(u))
