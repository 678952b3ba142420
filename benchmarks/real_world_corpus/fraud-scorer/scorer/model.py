import pickle


class Model:
    def __init__(self, path):
        with open(path, "rb") as fh:
            self.clf = pickle.load(fh)

    def score(self, features):
        return float(self.clf.predict_proba([features])[0][1])
